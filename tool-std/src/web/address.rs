//! Which addresses a fetch may connect to: the refused ranges (loopback, private, link-local and
//! cloud metadata, unique-local, CGNAT, documentation, multicast, and IPv6 spellings that embed
//! any of these), the configuration's exceptions, and the resolver that checks every address a
//! name resolves to before the client may connect to it.
//!
//! The client connects to exactly the addresses the [`CheckingResolver`] returned, so a name
//! cannot resolve to a public address for the check and to a private one for the connection
//! (DNS rebinding). Hosts written as addresses never reach a resolver: [`AddressRules::check_url`]
//! checks them, and the URL parser has already turned every numeric spelling (`2130706433`,
//! `0x7f.1`, `0177.0.0.1`) into the dotted address it means.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use ipnet::IpNet;
use tool_core::BoxFuture;
use url::{Host, Url};

/// A range of addresses a fetch refuses, with the name the model is told.
struct RefusedRange {
    net: IpNet,
    name: &'static str,
}

/// Parses the constant table below; every entry is a valid literal.
fn range(net: &str, name: &'static str) -> RefusedRange {
    RefusedRange {
        net: net
            .parse()
            .expect("the refused ranges are valid CIDR literals"),
        name,
    }
}

/// The ranges no public web page lives in. Sources: the IANA special-purpose registries for
/// IPv4 and IPv6 (RFC 6890 and its updates), plus the cloud metadata addresses named apart so
/// the model learns why.
fn refused_ranges() -> &'static [RefusedRange] {
    static RANGES: std::sync::OnceLock<Vec<RefusedRange>> = std::sync::OnceLock::new();
    RANGES.get_or_init(|| {
        vec![
            // Named first: more specific than the ranges that hold them.
            range("169.254.169.254/32", "cloud metadata service"),
            range("fd00:ec2::254/128", "cloud metadata service (AWS, IPv6)"),
            range("0.0.0.0/8", "unspecified (\"this network\")"),
            range("10.0.0.0/8", "private network"),
            range("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
            range("127.0.0.0/8", "loopback"),
            range("169.254.0.0/16", "link-local"),
            range("172.16.0.0/12", "private network"),
            range("192.0.0.0/24", "IETF protocol assignments"),
            range("192.0.2.0/24", "documentation (TEST-NET-1)"),
            range("192.88.99.0/24", "6to4 relay anycast"),
            range("192.168.0.0/16", "private network"),
            range("198.18.0.0/15", "benchmarking"),
            range("198.51.100.0/24", "documentation (TEST-NET-2)"),
            range("203.0.113.0/24", "documentation (TEST-NET-3)"),
            range("224.0.0.0/4", "multicast"),
            range("255.255.255.255/32", "broadcast"),
            range("240.0.0.0/4", "reserved"),
            range("::/128", "unspecified"),
            range("::1/128", "loopback"),
            range("64:ff9b:1::/48", "local-use NAT64"),
            range("100::/64", "discard-only"),
            range("100:0:0:1::/64", "dummy prefix"),
            range("2001::/32", "Teredo tunnel"),
            range("2001:2::/48", "benchmarking"),
            range("2001:10::/28", "ORCHID (deprecated)"),
            range("2001:db8::/32", "documentation"),
            range("3fff::/20", "documentation"),
            range("5f00::/16", "SRv6 segment identifiers"),
            range("fc00::/7", "unique-local"),
            range("fe80::/10", "link-local"),
            range("fec0::/10", "site-local (deprecated)"),
            range("ff00::/8", "multicast"),
        ]
    })
}

/// Why an address is refused: the address and the name of its range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The refused address (for an IPv6 address embedding an IPv4 one, the IPv6 address).
    pub address: IpAddr,
    /// The kind of range it is in ("loopback", "private network", ...), with the embedded
    /// IPv4 address when that is what decided.
    pub range: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.address, self.range)
    }
}

/// The range `address` is refused for, if any. IPv6 addresses that carry an IPv4 address
/// (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4
/// `2002:aabb:ccdd::`) are judged by the IPv4 address they carry.
///
/// ```
/// use std::net::IpAddr;
/// use tool_std::web::refused_range;
///
/// let ip = |text: &str| text.parse::<IpAddr>().unwrap();
/// assert_eq!(refused_range(ip("127.0.0.1")).unwrap().range, "loopback");
/// assert_eq!(
///     refused_range(ip("::ffff:10.1.2.3")).unwrap().range,
///     "private network (IPv4 10.1.2.3 inside IPv6)"
/// );
/// assert!(refused_range(ip("93.184.216.34")).is_none());
/// ```
#[must_use]
pub fn refused_range(address: IpAddr) -> Option<Refusal> {
    let refusal = |range: String| Refusal { address, range };
    if let IpAddr::V6(v6) = address
        && let Some(v4) = embedded_ipv4(v6)
    {
        return refused_range(IpAddr::V4(v4))
            .map(|inner| refusal(format!("{} (IPv4 {v4} inside IPv6)", inner.range)));
    }
    if let Some(found) = refused_ranges()
        .iter()
        .find(|candidate| candidate.net.contains(&address))
    {
        return Some(refusal(found.name.to_owned()));
    }
    // Only 2000::/3 is allocated as global unicast; the rest of the IPv6 space (less the ranges
    // above, and the embeddings judged by their IPv4 address) is reserved by the IETF, and
    // reaches no public web page.
    match address {
        IpAddr::V6(v6) if v6.segments()[0] & 0xe000 != 0x2000 => Some(refusal(
            "reserved (outside IPv6 global unicast, 2000::/3)".to_owned(),
        )),
        _ => None,
    }
}

/// The IPv4 address an IPv6 address carries by one of the standard embeddings, if it does.
fn embedded_ipv4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    let segments = v6.segments();
    let octets = v6.octets();
    let last_four = || Ipv4Addr::new(octets[12], octets[13], octets[14], octets[15]);
    match segments {
        // IPv4-mapped, ::ffff:a.b.c.d
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some(last_four()),
        // IPv4-compatible (deprecated), ::a.b.c.d; `::` and `::1` are judged as themselves.
        [0, 0, 0, 0, 0, 0, high, low] if high != 0 || low > 1 => Some(last_four()),
        // NAT64 well-known prefix, 64:ff9b::a.b.c.d
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(last_four()),
        // 6to4, 2002:aabb:ccdd::/48
        [0x2002, high, low, ..] => {
            let [a, b] = high.to_be_bytes();
            let [c, d] = low.to_be_bytes();
            Some(Ipv4Addr::new(a, b, c, d))
        }
        _ => None,
    }
}

/// A fetch refused because of where it would connect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "refused to fetch from `{host}`: it {} {refusal}, which fetch_url does not reach unless the \
     web configuration allows it (`WebConfig::allow_private_addresses`, `allow_host` or \
     `allow_range`)",
    if *.literal { "is the address" } else { "resolves to" }
)]
pub(crate) struct AddressRefused {
    /// The host as the URL names it.
    pub(crate) host: String,
    /// The address refused and why.
    pub(crate) refusal: Refusal,
    /// Whether the host was written as an address (else it is a name that resolved to it).
    pub(crate) literal: bool,
}

/// Looks names up: the system's resolver by default, or one of the user's (a DNS-over-HTTPS
/// client, or a fixed table in a test). Every address it returns is checked before the client
/// connects to it.
///
/// ```
/// use std::net::IpAddr;
/// use tool_core::BoxFuture;
/// use tool_std::web::HostResolver;
///
/// /// Every name is the one address.
/// struct Fixed(IpAddr);
///
/// impl HostResolver for Fixed {
///     fn lookup<'a>(&'a self, _host: &'a str) -> BoxFuture<'a, std::io::Result<Vec<IpAddr>>> {
///         Box::pin(async move { Ok(vec![self.0]) })
///     }
/// }
/// ```
pub trait HostResolver: Send + Sync + 'static {
    /// The addresses `host` resolves to.
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, std::io::Result<Vec<IpAddr>>>;
}

/// The system's resolver (`getaddrinfo`, on Tokio's blocking pool).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl HostResolver for SystemResolver {
    fn lookup<'a>(&'a self, host: &'a str) -> BoxFuture<'a, std::io::Result<Vec<IpAddr>>> {
        Box::pin(async move {
            let found = tokio::net::lookup_host((host, 0)).await?;
            Ok(found.map(|address| address.ip()).collect())
        })
    }
}

/// What the configuration allows besides public addresses.
#[derive(Debug, Clone, Default)]
pub(crate) struct AddressRules {
    pub(crate) allow_private: bool,
    /// Host names, lower case, without a trailing dot.
    pub(crate) hosts: Vec<String>,
    pub(crate) ranges: Vec<IpNet>,
}

impl AddressRules {
    /// Whether `host` (a name, or an address as text) is one the configuration names.
    pub(crate) fn names_host(&self, host: &str) -> bool {
        let host = normalize_host(host);
        self.hosts.contains(&host)
    }

    /// Whether a connection to `address`, reached through `host`, is refused.
    pub(crate) fn check(&self, host: &str, address: IpAddr) -> Result<(), Refusal> {
        if self.allow_private
            || self.names_host(host)
            || self.ranges.iter().any(|net| net.contains(&address))
        {
            return Ok(());
        }
        refused_range(address).map_or(Ok(()), Err)
    }

    /// Whether this URL's host is one the configuration lets through to a private address:
    /// such hosts keep plain `http` (a server on the loopback interface rarely speaks TLS).
    pub(crate) fn allows_private_host(&self, url: &Url) -> bool {
        match url.host() {
            Some(Host::Domain(name)) => self.names_host(name),
            Some(Host::Ipv4(v4)) => self.literal_allowed(IpAddr::V4(v4)),
            Some(Host::Ipv6(v6)) => self.literal_allowed(IpAddr::V6(v6)),
            None => false,
        }
    }

    fn literal_allowed(&self, address: IpAddr) -> bool {
        refused_range(address).is_some() && self.check(&address.to_string(), address).is_ok()
    }

    /// Checks a URL whose host is written as an address; a name is left to the resolver.
    pub(crate) fn check_url(&self, url: &Url) -> Result<(), AddressRefused> {
        let address = match url.host() {
            Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
            Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
            _ => return Ok(()),
        };
        self.check(&address.to_string(), address)
            .map_err(|refusal| AddressRefused {
                host: url.host_str().unwrap_or_default().to_owned(),
                refusal,
                literal: true,
            })
    }
}

/// A host as compared: lower case, without the trailing dot of a fully qualified name, without
/// an IPv6 literal's brackets.
pub(crate) fn normalize_host(host: &str) -> String {
    host.trim_end_matches('.')
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// A host as given by a person, as the host of a URL spells it: lower case, in its ASCII
/// (IDNA) form, without a scheme, userinfo, path, port or trailing dot (`https://Bücher.example:8080/a`
/// is `xn--bcher-kva.example`; an IPv6 address keeps its brackets).
pub(crate) fn host_name(text: &str) -> String {
    let text = text.trim();
    // A bare IPv6 address, which the URL syntax below would take for a name and a port.
    if let Ok(IpAddr::V6(v6)) = text.parse::<IpAddr>() {
        return Host::<String>::Ipv6(v6).to_string();
    }
    let text = text.split_once("://").map_or(text, |(_, rest)| rest);
    // What follows the host: a path, query or fragment; userinfo before it.
    let text = text.split(['/', '?', '#']).next().unwrap_or_default();
    let text = text.rsplit_once('@').map_or(text, |(_, host)| host);
    let text = if text.starts_with('[') {
        text.find(']').map_or(text, |end| &text[..=end])
    } else {
        match text.rsplit_once(':') {
            Some((name, port))
                if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) =>
            {
                name
            }
            _ => text,
        }
    };
    let text = text.trim_end_matches('.');
    match Host::parse(text) {
        Ok(host) => host.to_string().trim_end_matches('.').to_owned(),
        Err(_) => text.to_ascii_lowercase(),
    }
}

/// The client's resolver: looks the name up, and refuses the whole name if any address it
/// resolves to is refused (an attacker's DNS can mix one private address among public ones,
/// and the client may try them all).
pub(crate) struct CheckingResolver {
    pub(crate) rules: Arc<AddressRules>,
    pub(crate) resolver: Arc<dyn HostResolver>,
}

impl CheckingResolver {
    /// The checked addresses of `host`.
    pub(crate) async fn resolve_checked(&self, host: &str) -> Result<Vec<IpAddr>, ResolveError> {
        let addresses = self
            .resolver
            .lookup(host)
            .await
            .map_err(|error| ResolveError::Lookup {
                host: host.to_owned(),
                message: error.to_string(),
            })?;
        if addresses.is_empty() {
            return Err(ResolveError::Lookup {
                host: host.to_owned(),
                message: "no addresses".to_owned(),
            });
        }
        for &address in &addresses {
            self.rules
                .check(host, address)
                .map_err(|refusal| AddressRefused {
                    host: host.to_owned(),
                    refusal,
                    literal: false,
                })?;
        }
        Ok(addresses)
    }
}

/// Why a name gave no address to connect to.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum ResolveError {
    #[error("could not resolve `{host}`: {message}; check the host name")]
    Lookup { host: String, message: String },
    #[error(transparent)]
    Refused(#[from] AddressRefused),
}

impl reqwest::dns::Resolve for CheckingResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let rules = Arc::clone(&self.rules);
        let resolver = Arc::clone(&self.resolver);
        Box::pin(async move {
            let checking = CheckingResolver { rules, resolver };
            let addresses = checking.resolve_checked(name.as_str()).await?;
            // Port 0: the client puts in the URL's port.
            let sockets: Vec<SocketAddr> = addresses
                .into_iter()
                .map(|address| SocketAddr::new(address, 0))
                .collect();
            Ok(Box::new(sockets.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn range_of(text: &str) -> Option<String> {
        refused_range(ip(text)).map(|refusal| refusal.range)
    }

    #[test]
    fn every_special_purpose_v4_range_is_refused() {
        for (address, expected) in [
            ("0.0.0.0", "unspecified"),
            ("10.255.0.1", "private network"),
            ("100.100.0.1", "carrier-grade NAT"),
            ("127.1.2.3", "loopback"),
            ("169.254.1.1", "link-local"),
            ("169.254.169.254", "cloud metadata service"),
            ("172.31.255.255", "private network"),
            ("192.0.2.7", "documentation"),
            ("192.168.1.1", "private network"),
            ("198.19.0.1", "benchmarking"),
            ("224.0.0.251", "multicast"),
            ("255.255.255.255", "broadcast"),
            ("250.1.1.1", "reserved"),
        ] {
            let found = range_of(address).unwrap_or_default();
            assert!(found.contains(expected), "{address}: {found:?}");
        }
    }

    #[test]
    fn every_special_purpose_v6_range_is_refused() {
        for (address, expected) in [
            ("::", "unspecified"),
            ("::1", "loopback"),
            ("fd00::1", "unique-local"),
            ("fd00:ec2::254", "cloud metadata"),
            ("fe80::1", "link-local"),
            ("ff02::1", "multicast"),
            ("2001:db8::1", "documentation"),
            ("2001:0:4136:e378::1", "Teredo"),
        ] {
            let found = range_of(address).unwrap_or_default();
            assert!(found.contains(expected), "{address}: {found:?}");
        }
    }

    #[test]
    fn ipv6_spellings_of_private_ipv4_are_judged_by_the_ipv4() {
        for (address, expected) in [
            ("::ffff:127.0.0.1", "loopback (IPv4 127.0.0.1 inside IPv6)"),
            ("::ffff:7f00:1", "loopback (IPv4 127.0.0.1 inside IPv6)"),
            ("::10.0.0.1", "private network (IPv4 10.0.0.1 inside IPv6)"),
            (
                "64:ff9b::169.254.169.254",
                "cloud metadata service (IPv4 169.254.169.254 inside IPv6)",
            ),
            (
                "2002:c0a8:0101::1",
                "private network (IPv4 192.168.1.1 inside IPv6)",
            ),
        ] {
            assert_eq!(range_of(address).as_deref(), Some(expected), "{address}");
        }
    }

    #[test]
    fn ipv6_outside_global_unicast_and_newer_special_ranges_are_refused() {
        for (address, expected) in [
            ("2001:2::1", "benchmarking"),
            ("2001:10::1", "ORCHID"),
            ("5f00::1", "SRv6"),
            ("100:0:0:1::1", "dummy"),
            ("::1:0:0:0", "reserved"),
            ("4000::1", "reserved"),
            ("e000::1", "reserved"),
        ] {
            let found = range_of(address).unwrap_or_default();
            assert!(found.contains(expected), "{address}: {found:?}");
        }
    }

    #[test]
    fn public_addresses_and_their_ipv6_spellings_pass() {
        for address in [
            "93.184.216.34",
            "1.1.1.1",
            "::ffff:1.1.1.1",
            "64:ff9b::808:808",
            "2002:0808:0808::1",
            "2606:4700:4700::1111",
        ] {
            assert_eq!(range_of(address), None, "{address}");
        }
    }

    #[test]
    fn the_configuration_lets_named_hosts_and_ranges_through() {
        let rules = AddressRules {
            allow_private: false,
            hosts: vec!["intranet.test".to_owned()],
            ranges: vec!["10.8.0.0/16".parse().unwrap()],
        };
        assert!(rules.check("intranet.test.", ip("10.0.0.1")).is_ok());
        assert!(rules.check("INTRANET.test", ip("10.0.0.1")).is_ok());
        assert!(rules.check("other.test", ip("10.8.3.4")).is_ok());
        assert!(rules.check("other.test", ip("10.9.3.4")).is_err());
        let open = AddressRules {
            allow_private: true,
            ..AddressRules::default()
        };
        assert!(open.check("anything", ip("127.0.0.1")).is_ok());
    }
}
