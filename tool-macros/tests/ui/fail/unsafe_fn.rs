use tool_core::tool;

/// Read memory.
#[tool(read_only)]
unsafe fn peek(address: usize) -> u8 {
    unsafe { *(address as *const u8) }
}

fn main() {}
