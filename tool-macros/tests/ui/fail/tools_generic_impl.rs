use tool_core::tools;

struct Store<T>(T);

#[tools]
impl<T: Send + Sync + 'static> Store<T> {
    /// Say hello.
    #[tool(read_only)]
    fn hello(&self) -> String {
        "hello".into()
    }
}

fn main() {}
