use tool_core::tools;

struct Counter;

#[tools]
impl Counter {
    /// Consume the counter.
    #[tool]
    fn finish(self) -> u64 {
        0
    }
}

fn main() {}
