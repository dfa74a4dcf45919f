use std::rc::Rc;

use tool_core::tool;

async fn tick() {}

/// Hold a non-`Send` value across an await.
///
/// # Arguments
/// * `a` - A number.
#[tool(read_only)]
async fn hold(a: i64) -> i64 {
    let shared = Rc::new(a);
    tick().await;
    *shared
}

fn main() {}
