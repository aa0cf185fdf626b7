use std::collections::BTreeMap;
use mcp_runtime::prelude::*;
/// The words a greeting starts with.
struct Salutation(&'static str);
/// A greeting for a person.
async fn greeting(
    args: BTreeMap<String, String>,
    salutation: Shared<Salutation>,
) -> String {
    let name = args.get("name").cloned().unwrap_or_default();
    [salutation.0, " ", &name, "."].concat()
}
///The `#[prompt]` handler of [`greeting()`]: register it with `.handler::<greeting>()`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct greeting {}
#[doc(hidden)]
#[allow(unused_qualifications)]
const _: () = {
    use ::mcp_runtime::__private as _mcp;
    impl _mcp::PromptHandler for greeting {
        fn descriptor(&self) -> _mcp::Prompt {
            _mcp::PromptSpec {
                name: "greeting",
                title: _mcp::Option::Some("Greeting"),
                description: "A greeting for a person.",
                input: &[
                    <BTreeMap<String, String> as _mcp::FromCall>::input_schema,
                    <Shared<Salutation> as _mcp::FromCall>::input_schema,
                ],
            }
                .build()
        }
        fn get(
            &self,
            __mcp_arguments: _mcp::BTreeMap<_mcp::String, _mcp::String>,
            __mcp_ctx: _mcp::Ctx,
        ) -> _mcp::PromptFuture<'_> {
            let mut __mcp_parts = _mcp::CallParts::from_strings(
                __mcp_arguments,
                __mcp_ctx,
            );
            _mcp::Box::pin(async move {
                let __mcp_arg0: BTreeMap<String, String> = _mcp::FromCall::from_call(
                    &mut __mcp_parts,
                )?;
                let __mcp_arg1: Shared<Salutation> = _mcp::FromCall::from_call(
                    &mut __mcp_parts,
                )?;
                let __mcp_output = greeting(__mcp_arg0, __mcp_arg1).await;
                _mcp::IntoPromptResult::into_prompt_outcome(__mcp_output)
            })
        }
        fn needs_shared(&self) -> _mcp::Vec<_mcp::SharedNeed> {
            _mcp::needs_shared(
                &[
                    <BTreeMap<String, String> as _mcp::FromCall>::SHARED,
                    <Shared<Salutation> as _mcp::FromCall>::SHARED,
                ],
            )
        }
        fn needs_signer(&self) -> bool {
            _mcp::needs_signer(
                &[
                    <BTreeMap<String, String> as _mcp::FromCall>::NEEDS_SIGNER,
                    <Shared<Salutation> as _mcp::FromCall>::NEEDS_SIGNER,
                ],
            )
        }
    }
    impl _mcp::Register for greeting {
        fn register(builder: _mcp::ServerBuilder) -> _mcp::ServerBuilder {
            builder.prompt(greeting {})
        }
    }
};
fn main() {}
