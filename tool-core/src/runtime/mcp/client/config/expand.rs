//! `${VAR}` and `${VAR:-default}` in a `.mcp.json`'s strings, as Claude Code expands them.

/// Why a text could not be expanded.
#[derive(Debug, PartialEq)]
pub(super) enum Unexpanded {
    /// This variable is unset, and its reference gives no default.
    Unset(String),
    /// This reference has another inside its default.
    Nested(String),
}

/// `${VAR}` and `${VAR:-default}` expanded with `lookup`. A `$` not followed by `{`, or a `${`
/// never closed, stays as written.
pub(super) fn expand(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, Unexpanded> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (variable, default) = match inner.split_once(":-") {
            Some((variable, default)) => (variable, Some(default)),
            None => (inner, None),
        };
        let valid = !variable.is_empty()
            && variable
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if valid && default.is_some_and(|default| default.contains("${")) {
            // `${A:-${B}}`: the first `}` closes the inner reference, so the text cannot be
            // read as the writer meant it; say so rather than expand it wrongly.
            return Err(Unexpanded::Nested(format!("${{{inner}}}}}")));
        }
        if !valid {
            // Not a variable reference (`${}` or `${a b}`): kept as written.
            out.push_str(&rest[start..start + 2 + end + 1]);
        } else {
            match (
                lookup(variable).filter(|v| default.is_none() || !v.is_empty()),
                default,
            ) {
                (Some(value), _) => out.push_str(&value),
                (None, Some(default)) => out.push_str(default),
                (None, None) => return Err(Unexpanded::Unset(variable.to_owned())),
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
