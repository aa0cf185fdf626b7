//! Handlers that several servers under test register, and the forms
//! they ask.
//!
//! The greeting flow asks the user's name, then a favourite colour, then
//! greets with both; the name learnt in round one travels in the typed
//! resume state ([`Step`]), because the client resends only the newest
//! round's answers. The name half is here; the colour half and the
//! handlers that run the flow are stamped into the test file by
//! [`greeting_handlers!`], because each server offers its own colours (the
//! colour form's choices are on the wire).

use mcp_runtime::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// The arguments of `summarise` (no doc comment: it would be the schema's
// description); a client sends them typed too.
#[derive(Serialize, Deserialize, JsonSchema)]
pub(crate) struct SummariseArgs {
    /// What to summarise.
    pub(crate) topic: String,
    /// How long the summary may be.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) length: Option<String>,
}

/// Summarise a topic.
#[prompt]
pub(crate) async fn summarise(args: SummariseArgs) -> String {
    format!(
        "Summarise {} in {} words.",
        args.topic,
        args.length.as_deref().unwrap_or("100")
    )
}

// The first question.
#[derive(ElicitForm, Serialize)]
pub(crate) struct NameForm {
    /// Your name.
    #[elicit(min_length = 1, max_length = 40)]
    pub(crate) name: String,
}

/// Where a flow stands between rounds.
#[derive(Serialize, Deserialize)]
pub(crate) enum Step {
    AskedName,
    AskedColour { name: String },
}

/// Round one: asks for the name.
pub(crate) fn ask_name<T>() -> Reply<Step, T> {
    Reply::ask("name", NameForm::form("What is your name?")).resume(Step::AskedName)
}

/// Defines, in the calling test file, a module `greeting_handlers` with
/// the colour half of the flow, and imports from it:
///
/// - `Colour`, a choice of the variants named (`greeting_handlers!(Red,
///   Green)`), and `ColourForm`, the second question;
/// - the `#[tool] greet`, `#[prompt] greeting` and `#[resource]
///   greeting_card` (`test://greeting-card`, `text/plain`), which run the
///   flow: a declined name ends it ("No name, no greeting."), a declined
///   colour says goodbye, a missing or invalid answer is asked again;
/// - `answer_ada_green`, a client-wide form handler answering "Ada" and
///   green (for the client tests; needs a `Green` variant).
#[allow(unused_macros)] // not every test file has this server
macro_rules! greeting_handlers {
    ($($colour:ident),+ $(,)?) => {
        mod greeting_handlers {
            #![allow(dead_code)]

            use ::mcp_runtime::client::form_answer;
            use ::mcp_runtime::prelude::*;
            use ::mcp_runtime::schema::{
                ElicitRequestFormParams, ElicitResult, GetPromptResult, PromptMessage,
                ReadResourceResult, ResourceContents,
            };
            use ::serde::{Deserialize, Serialize};

            use $crate::support::handlers::{NameForm, Step, ask_name};

            #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ElicitChoice)]
            #[serde(rename_all = "lowercase")]
            pub(crate) enum Colour {
                $($colour),+
            }

            #[derive(ElicitForm, Serialize)]
            pub(crate) struct ColourForm {
                /// Your favourite colour.
                pub(crate) colour: Colour,
            }

            fn ask_colour<T>(name: String) -> Reply<Step, T> {
                Reply::ask(
                    "colour",
                    ColourForm::form(format!("{name}, pick a colour.")),
                )
                .resume(Step::AskedColour { name })
            }

            /// The same flow for tools, prompts and resources; `done` wraps
            /// the text.
            fn flow<T>(
                step: Resume<Step>,
                ctx: &Ctx,
                done: impl Fn(String) -> T,
            ) -> Reply<Step, T> {
                match step.into_inner() {
                    None => ask_name(),
                    Some(Step::AskedName) => match ctx.answer::<NameForm>("name") {
                        Answer::Accept(NameForm { name }) => ask_colour(name),
                        Answer::Decline | Answer::Cancel => {
                            Reply::done(done("No name, no greeting.".into()))
                        }
                        Answer::Missing | Answer::Invalid(_) => ask_name(),
                    },
                    Some(Step::AskedColour { name }) => match ctx.answer::<ColourForm>("colour") {
                        Answer::Accept(ColourForm { colour }) => {
                            Reply::done(done(format!("Hello {name}, lover of {colour:?}!")))
                        }
                        Answer::Decline | Answer::Cancel => {
                            Reply::done(done(format!("Goodbye, {name}.")))
                        }
                        Answer::Missing | Answer::Invalid(_) => ask_colour(name),
                    },
                }
            }

            /// Greets the user by name and favourite colour, asking for both.
            #[tool]
            pub(crate) async fn greet(ctx: Ctx, step: Resume<Step>) -> Reply<Step> {
                flow(step, &ctx, CallToolResult::text)
            }

            /// A greeting message, after asking for a name and a colour.
            #[prompt]
            pub(crate) async fn greeting(
                step: Resume<Step>,
                ctx: Ctx,
            ) -> Reply<Step, GetPromptResult> {
                flow(step, &ctx, |text| {
                    GetPromptResult::new(vec![PromptMessage::user(text)])
                })
            }

            /// A greeting card, after asking for a name and a colour.
            #[resource(uri = "test://greeting-card", mime_type = "text/plain")]
            pub(crate) async fn greeting_card(
                ctx: Ctx,
                step: Resume<Step>,
            ) -> Reply<Step, ReadResourceResult> {
                flow(step, &ctx, |text| {
                    ReadResourceResult::new(vec![ResourceContents::text(
                        "test://greeting-card",
                        "text/plain",
                        text,
                    )])
                })
            }

            /// A client-wide form handler: "Ada" for the name, green for the
            /// colour.
            pub(crate) async fn answer_ada_green(params: ElicitRequestFormParams) -> ElicitResult {
                if params.requested_schema.properties.contains_key("name") {
                    form_answer(&NameForm { name: "Ada".into() }).unwrap()
                } else {
                    form_answer(&ColourForm {
                        colour: Colour::Green,
                    })
                    .unwrap()
                }
            }
        }

        #[allow(unused_imports)] // each test file uses its own part
        use greeting_handlers::{
            Colour, ColourForm, answer_ada_green, greet, greeting, greeting_card,
        };
    };
}

#[allow(unused_imports)]
pub(crate) use greeting_handlers;
