//! What the seccomp filter of the `filter` module cannot say, held by a second, hand-written
//! filter and a supervisor in this process:
//!
//! - **`listen` on a socket never bound**, under [`Network::Ports`](super::Network::Ports): the
//!   kernel binds such a socket to a free port, which Landlock's bind rule never sees, and the
//!   command could then accept connections on a port no rule allows. Each `listen` of a
//!   sandboxed command is sent to a supervisor thread (`SECCOMP_RET_USER_NOTIF`), which takes a
//!   copy of the socket from the command (`pidfd_getfd`), refuses it with `EPERM` when it is an
//!   IPv4 or IPv6 socket bound to no port, and otherwise makes the `listen` itself on that
//!   copy, answering the command with its result. Acting on the copy, not letting the kernel
//!   run the call again, leaves no window in which another thread of the command could put an
//!   unbound socket under the same descriptor number.
//! - **x32 system calls** (x86_64 only): numbers with bit 30 set reach the same kernel
//!   functions under other numbers, which the `filter` module's rules do not name; they fail
//!   with `ENOSYS`, as on a kernel built without x32.
//!
//! Where the supervisor cannot be set up (a kernel before 5.6), `listen` stays unwatched, as it
//! was, and x32 calls are still refused.

use std::io;
use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd, RawFd};
use std::sync::{Mutex, PoisonError};

use seccompiler::sock_filter;

// Classic BPF, as the kernel's `linux/filter.h` defines it: the class, the size or jump, and
// the operand's source, or'ed.
const BPF_LD: u16 = 0x00;
const BPF_W: u16 = 0x00;
const BPF_ABS: u16 = 0x20;
const BPF_JMP: u16 = 0x05;
const BPF_JEQ: u16 = 0x10;
const BPF_JGE: u16 = 0x30;
const BPF_K: u16 = 0x00;
const BPF_RET: u16 = 0x06;
/// `BPF_LD | BPF_W | BPF_ABS`: load a 32-bit word of `seccomp_data`.
const BPF_LD_W_ABS: u16 = BPF_LD | BPF_W | BPF_ABS;
const BPF_JMP_JEQ_K: u16 = BPF_JMP | BPF_JEQ | BPF_K;
const BPF_JMP_JGE_K: u16 = BPF_JMP | BPF_JGE | BPF_K;
const BPF_RET_K: u16 = BPF_RET | BPF_K;
/// Offsets in `struct seccomp_data`.
const NR_OFFSET: u32 = 0;
const ARCH_OFFSET: u32 = 4;
/// The x32 ABI's bit in a system call number.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// The audit architecture of this machine's system calls.
#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;
#[cfg(target_arch = "riscv64")]
const AUDIT_ARCH: u32 = 0xC000_00F3;

fn statement(code: u16, k: u32) -> sock_filter {
    sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

/// The program: another architecture's calls pass (the `filter` module's filter kills them),
/// x32 calls fail with `ENOSYS`, and `listen` goes to the supervisor when `watch_listen`.
fn program(watch_listen: bool) -> Vec<sock_filter> {
    let allow = statement(BPF_RET_K, libc::SECCOMP_RET_ALLOW);
    let mut program = vec![statement(BPF_LD_W_ABS, ARCH_OFFSET)];
    // Filled in below, once the length is known: to `allow` when the arch differs.
    program.push(jump(BPF_JMP_JEQ_K, AUDIT_ARCH, 0, 0));
    let arch_check = program.len() - 1;
    program.push(statement(BPF_LD_W_ABS, NR_OFFSET));
    #[cfg(target_arch = "x86_64")]
    {
        program.push(jump(BPF_JMP_JGE_K, X32_SYSCALL_BIT, 0, 1));
        program.push(statement(
            BPF_RET_K,
            libc::SECCOMP_RET_ERRNO | libc::ENOSYS.cast_unsigned(),
        ));
    }
    if watch_listen {
        let listen = u32::try_from(libc::SYS_listen).unwrap_or(u32::MAX);
        program.push(jump(BPF_JMP_JEQ_K, listen, 0, 1));
        program.push(statement(BPF_RET_K, libc::SECCOMP_RET_USER_NOTIF));
    }
    program.push(allow);
    let to_allow = program.len() - 1 - (arch_check + 1);
    program[arch_check].jf = u8::try_from(to_allow).unwrap_or(u8::MAX);
    program
}

/// `struct sock_fprog`.
#[repr(C)]
struct Fprog {
    len: libc::c_ushort,
    filter: *const sock_filter,
}

/// Installs the program on the calling thread (which has set `no_new_privs`), for what it
/// starts after; with `watch_listen`, hands the filter's listener to the supervisor. Call it
/// after the `filter` module's filter.
pub(crate) fn apply(watch_listen: bool) -> io::Result<()> {
    let program = program(watch_listen);
    let fprog = Fprog {
        len: libc::c_ushort::try_from(program.len()).unwrap_or(libc::c_ushort::MAX),
        filter: program.as_ptr(),
    };
    let install = |flags: libc::c_ulong| {
        // SAFETY: seccomp(SECCOMP_SET_MODE_FILTER) reads `fprog` and the program it points to,
        // both alive for the call.
        let result = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                flags,
                &raw const fprog,
            )
        };
        if result < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(result)
        }
    };
    if !watch_listen {
        return install(0).map(drop);
    }
    match install(libc::SECCOMP_FILTER_FLAG_NEW_LISTENER).map(owned) {
        Ok(Some(listener)) => supervise(listener),
        // No listener on this kernel: x32 calls still refused, listen unwatched.
        Ok(None) | Err(_) => install(0).map(drop),
    }
}

/// The listeners waiting for the supervisor to take them, and the pipe that wakes it.
struct Arrivals {
    listeners: Vec<OwnedFd>,
    wake: OwnedFd,
}

static ARRIVALS: Mutex<Option<Arrivals>> = Mutex::new(None);

/// Starts the supervisor thread, once. Call it from a thread under no sandbox: a thread
/// inherits its creator's seccomp filters and Landlock domain, and a supervisor under the
/// listen filter would wait on itself.
pub(crate) fn start_supervisor() -> io::Result<()> {
    let mut arrivals = ARRIVALS.lock().unwrap_or_else(PoisonError::into_inner);
    if arrivals.is_some() {
        return Ok(());
    }
    let mut ends = [0; 2];
    // SAFETY: pipe2 fills the two descriptors of `ends`.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: two descriptors just made, owned by nobody else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
    std::thread::Builder::new()
        .name("sandbox-listen".to_owned())
        .spawn(move || run(&read, &ARRIVALS))?;
    *arrivals = Some(Arrivals {
        listeners: Vec::new(),
        wake: write,
    });
    Ok(())
}

/// Hands `listener` to the supervisor thread ([`start_supervisor`] must have run).
fn supervise(listener: OwnedFd) -> io::Result<()> {
    let mut arrivals = ARRIVALS.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(arrivals) = arrivals.as_mut() else {
        return Err(io::Error::other("the listen supervisor was not started"));
    };
    arrivals.listeners.push(listener);
    // SAFETY: write one byte from a local buffer to the pipe this module owns.
    unsafe { libc::write(arrivals.wake.as_raw_fd(), [1u8].as_ptr().cast(), 1) };
    Ok(())
}

/// The supervisor: waits on every listener (and the wake pipe), answers each `listen`, and
/// drops a listener once every process under its filter has ended.
fn run(wake: &OwnedFd, arrivals: &Mutex<Option<Arrivals>>) {
    let mut listeners: Vec<OwnedFd> = Vec::new();
    loop {
        let mut fds: Vec<libc::pollfd> = std::iter::once(wake)
            .chain(&listeners)
            .map(|fd| libc::pollfd {
                fd: fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let count = libc::nfds_t::try_from(fds.len()).unwrap_or(libc::nfds_t::MAX);
        // SAFETY: poll reads and fills `fds`, a live array of `count` entries.
        if unsafe { libc::poll(fds.as_mut_ptr(), count, -1) } < 0 {
            continue; // EINTR
        }
        if fds[0].revents & libc::POLLIN != 0 {
            let mut drained = [0u8; 64];
            // SAFETY: read into a local buffer of its length.
            unsafe { libc::read(wake.as_raw_fd(), drained.as_mut_ptr().cast(), drained.len()) };
            if let Some(arrivals) = arrivals
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .as_mut()
            {
                listeners.append(&mut arrivals.listeners);
            }
        }
        let mut ended = Vec::new();
        for (index, polled) in fds[1..].iter().enumerate() {
            if polled.revents & libc::POLLIN != 0 {
                answer(&listeners[index]);
            } else if polled.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
                ended.push(index);
            }
        }
        for index in ended.into_iter().rev() {
            listeners.swap_remove(index);
        }
    }
}

/// Receives one notification from `listener` and answers it.
fn answer(listener: &OwnedFd) {
    // SAFETY: both structures are plain data the kernel fills or reads; zeroed is their
    // documented starting state.
    let mut notification: libc::seccomp_notif = unsafe { std::mem::zeroed() };
    // SAFETY: the ioctl fills `notification`, a structure of the size its request names.
    if unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_RECV,
            &raw mut notification,
        )
    } != 0
    {
        return; // the caller was interrupted, or ended, before it was received
    }
    let result = decide(&notification);
    // SAFETY: as above.
    let mut response: libc::seccomp_notif_resp = unsafe { std::mem::zeroed() };
    response.id = notification.id;
    match result {
        Ok(value) => response.val = value,
        Err(errno) => response.error = -errno,
    }
    // SAFETY: the ioctl reads `response`; a caller gone since is ENOENT, nothing to do.
    unsafe {
        libc::ioctl(
            listener.as_raw_fd(),
            libc::SECCOMP_IOCTL_NOTIF_SEND,
            &raw const response,
        );
    }
}

/// The answer to one `listen(fd, backlog)`: its return value, or the error number.
fn decide(notification: &libc::seccomp_notif) -> Result<i64, i32> {
    let fd = i32::try_from(notification.data.args[0]).map_err(|_| libc::EBADF)?;
    let backlog = i32::try_from(notification.data.args[1] & 0xFFFF_FFFF).unwrap_or(i32::MAX);
    let pid = i32::try_from(notification.pid).map_err(|_| libc::EPERM)?;
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let pidfd = owned(pidfd).ok_or(libc::EPERM)?;
    // SAFETY: pidfd_getfd takes descriptors and flags and returns a new descriptor.
    let socket = unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), fd, 0) };
    let Some(socket) = owned(socket) else {
        return Err(io::Error::last_os_error()
            .raw_os_error()
            .filter(|errno| *errno == libc::EBADF)
            .unwrap_or(libc::EPERM));
    };
    if unbound_internet_socket(&socket) {
        return Err(libc::EPERM);
    }
    // SAFETY: listen on a descriptor this thread owns.
    if unsafe { libc::listen(socket.as_raw_fd(), backlog) } != 0 {
        return Err(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EINVAL));
    }
    Ok(0)
}

fn owned(fd: libc::c_long) -> Option<OwnedFd> {
    let fd = RawFd::try_from(fd).ok().filter(|fd| *fd >= 0)?;
    // SAFETY: a descriptor the kernel just returned to this thread.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Whether `socket` is an IPv4 or IPv6 socket with no port of its own yet.
fn unbound_internet_socket(socket: &OwnedFd) -> bool {
    // SAFETY: plain data, zeroed as getsockname expects.
    let mut address: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut length = libc::socklen_t::try_from(std::mem::size_of_val(&address)).unwrap_or(0);
    // SAFETY: getsockname fills `address` up to `length` bytes.
    if unsafe {
        libc::getsockname(
            socket.as_raw_fd(),
            (&raw mut address).cast(),
            &raw mut length,
        )
    } != 0
    {
        return false; // not a socket: listen itself will say so
    }
    match i32::from(address.ss_family) {
        libc::AF_INET => {
            // SAFETY: the family says the storage holds a `sockaddr_in`.
            let ipv4: libc::sockaddr_in = unsafe { std::ptr::read((&raw const address).cast()) };
            ipv4.sin_port == 0
        }
        libc::AF_INET6 => {
            // SAFETY: the family says the storage holds a `sockaddr_in6`.
            let ipv6: libc::sockaddr_in6 = unsafe { std::ptr::read((&raw const address).cast()) };
            ipv6.sin6_port == 0
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_architecture_jumps_to_the_final_allow_with_or_without_the_listen_watch() {
        for watch_listen in [false, true] {
            let program = program(watch_listen);
            let arch_check = &program[1];
            let landing = 2 + usize::from(arch_check.jf);
            assert_eq!(landing, program.len() - 1, "{watch_listen}");
            assert_eq!(program[landing].k, libc::SECCOMP_RET_ALLOW);
            let notifies = program
                .iter()
                .any(|instruction| instruction.k == libc::SECCOMP_RET_USER_NOTIF);
            assert_eq!(notifies, watch_listen);
        }
    }
}
