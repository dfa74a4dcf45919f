//! The seccomp filter every sandboxed command runs under, for what Landlock does not cover:
//! devices cannot be made (`mknod` of a character or block device: as root, a way to
//! `/dev/kmsg` or to a disk under the workspace), and with the network restricted no socket
//! reaches anything Landlock's TCP rules do not see: MPTCP (`socket(.., IPPROTO_MPTCP)`), TCP
//! Fast Open (`sendto`/`sendmsg` with `MSG_FASTOPEN`, which connects without `connect`) and
//! io_uring (whose network operations no filter sees). With [`Network::Off`] every socket but a
//! Unix or netlink one is refused too (UDP and DNS included, VSOCK to a hypervisor's host too;
//! Unix sockets stay, for local IPC).
//!
//! A refused call fails with `EPERM`, as a Landlock refusal does; the program sees an error,
//! not a signal. The filter is installed on the thread that starts the command, after
//! Landlock's ruleset and `no_new_privs`, and the command's whole tree inherits it.
//!
//! Not held by this filter: a `listen` on a socket never bound, under [`Network::Ports`]
//! (seccomp cannot tell a bound socket from an unbound one), and x32 system calls (whose
//! numbers its rules do not name); the `listen` module holds both.

use std::collections::BTreeMap;
use std::io;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

use super::Network;

/// The filter for a command under `network`, compiled for this machine's architecture.
pub(crate) fn compile(network: &Network) -> io::Result<BpfProgram> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let file_type = |arg: u8| -> io::Result<Vec<SeccompRule>> {
        [libc::S_IFCHR, libc::S_IFBLK]
            .into_iter()
            .map(|kind| {
                rule(vec![condition(
                    arg,
                    SeccompCmpOp::MaskedEq(u64::from(libc::S_IFMT)),
                    u64::from(kind),
                )?])
            })
            .collect()
    };
    #[cfg(target_arch = "x86_64")]
    rules.insert(libc::SYS_mknod, file_type(1)?);
    rules.insert(libc::SYS_mknodat, file_type(2)?);
    if network.is_restricted() {
        let mptcp = u64::try_from(libc::IPPROTO_MPTCP).unwrap_or_default();
        let mut socket = vec![rule(vec![condition(2, SeccompCmpOp::Eq, mptcp)?])?];
        if *network == Network::Off {
            // Every family but the local ones: a list of the remote ones (IPv4, IPv6, packet)
            // would miss VSOCK (to the hypervisor's host), TIPC, RDS and the rest.
            let local = [libc::AF_UNIX, libc::AF_NETLINK]
                .into_iter()
                .map(|family| {
                    condition(
                        0,
                        SeccompCmpOp::Ne,
                        u64::try_from(family).unwrap_or_default(),
                    )
                })
                .collect::<io::Result<Vec<_>>>()?;
            socket.push(rule(local)?);
        }
        rules.insert(libc::SYS_socket, socket);
        let fast_open = u64::try_from(libc::MSG_FASTOPEN).unwrap_or_default();
        let flags = |arg: u8| -> io::Result<Vec<SeccompRule>> {
            Ok(vec![rule(vec![condition(
                arg,
                SeccompCmpOp::MaskedEq(fast_open),
                fast_open,
            )?])?])
        };
        rules.insert(libc::SYS_sendto, flags(3)?);
        rules.insert(libc::SYS_sendmsg, flags(2)?);
        rules.insert(libc::SYS_sendmmsg, flags(3)?);
        // io_uring's socket, connect and send operations are not system calls a filter sees.
        rules.insert(libc::SYS_io_uring_setup, Vec::new());
    }
    let arch = std::env::consts::ARCH.try_into().map_err(|error| {
        io::Error::other(format!("no seccomp filter for this machine: {error}"))
    })?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM.cast_unsigned()),
        arch,
    )
    .map_err(filter_error)?;
    filter.try_into().map_err(filter_error)
}

/// Installs `program` on the calling thread (which must have set `no_new_privs`): what it
/// starts afterwards inherits it.
pub(crate) fn apply(program: &BpfProgram) -> io::Result<()> {
    seccompiler::apply_filter(program).map_err(filter_error)
}

fn condition(arg: u8, op: SeccompCmpOp, value: u64) -> io::Result<SeccompCondition> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(filter_error)
}

fn rule(conditions: Vec<SeccompCondition>) -> io::Result<SeccompRule> {
    SeccompRule::new(conditions).map_err(filter_error)
}

fn filter_error(error: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("the seccomp filter could not be built: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_compiles_for_every_network_setting() {
        for network in [Network::Off, Network::Ports(vec![443]), Network::All] {
            let program = compile(&network).unwrap();
            assert!(!program.is_empty(), "{network:?}");
        }
    }
}
