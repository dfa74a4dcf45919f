use tool_core::tools;

struct Server;

#[tools(read_only)]
impl Server {
    /// Say hello.
    #[tool]
    fn hello(&self) -> String {
        "hello".into()
    }
}

fn main() {}
