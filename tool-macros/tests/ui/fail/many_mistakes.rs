use tool_core::tool;

/// # Arguments
/// * `e` - Not a parameter.
#[tool(readonly, name = "add numbers", read_only, destructive, read_only, idempotent = true, timeout_ms = 0)]
unsafe fn add<T>(
    #[arg(path, url)] a: &str,
    (b, _): (i64, i64),
    #[arg(default = Some(1))] c: Option<i64>,
    d: impl ToString,
) -> i64 {
    let _ = (a, c, d.to_string());
    b
}

fn main() {}
