//! The conformance suite's prompts, as a program would offer its own: a [`PromptProvider`].

use lazytool_mcp::rmcp::model::{
    ContentBlock, ErrorData, GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage,
    Role,
};
use std::collections::HashMap;

use lazytool_mcp::{CompletionFuture, PromptFuture, PromptProvider};
use lazytool_runtime::ToolContext;
use serde_json::{Value, json};

use std::sync::atomic::Ordering;

use tokio::sync::watch;

use crate::RED_PIXEL_PNG;
use crate::changes::{PROMPT_ADDED, PROMPTS_CHANGED};

/// `test_simple_prompt`, `test_prompt_with_arguments` (whose arguments complete from
/// [`SUGGESTIONS`]), `test_prompt_with_embedded_resource` and `test_prompt_with_image`.
pub struct Prompts;

/// What `test_prompt_with_arguments`'s arguments complete from.
const SUGGESTIONS: [&str; 4] = ["test", "testValue1", "testValue2", "other"];

impl PromptProvider for Prompts {
    fn prompts(&self) -> Vec<Prompt> {
        let required = |name: &str, description: &str| {
            PromptArgument::new(name)
                .with_description(description)
                .with_required(true)
        };
        let mut prompts = vec![
            Prompt::new(
                "test_simple_prompt",
                Some("A simple prompt without arguments."),
                None,
            ),
            Prompt::new(
                "test_prompt_with_arguments",
                Some("A prompt with two required arguments."),
                Some(vec![
                    required("arg1", "The first argument."),
                    required("arg2", "The second argument."),
                ]),
            ),
            Prompt::new(
                "test_prompt_with_embedded_resource",
                Some("A prompt that embeds a resource."),
                Some(vec![required(
                    "resourceUri",
                    "The URI of the resource to embed.",
                )]),
            ),
            Prompt::new(
                "test_prompt_with_image",
                Some("A prompt with an image."),
                None,
            ),
        ];
        prompts.push(Prompt::new(
            "test_input_required_result_prompt",
            Some("A prompt that asks the user for context first."),
            None,
        ));
        if PROMPT_ADDED.load(Ordering::Acquire) {
            prompts.push(Prompt::new(
                "test_added_prompt",
                Some("A prompt test_trigger_prompt_change added."),
                None,
            ));
        }
        prompts
    }

    fn get_prompt_in(
        &self,
        name: String,
        arguments: JsonObject,
        context: ToolContext,
    ) -> PromptFuture<'_> {
        if name != "test_input_required_result_prompt" {
            return self.get_prompt(name, arguments);
        }
        Box::pin(async move {
            let form = json!({"type": "object", "properties": {"context": {"type": "string"}}});
            let answer = context
                .elicit("user_context", "What context should the prompt use?", form)
                .await
                .map_err(|error| ErrorData::invalid_params(error.to_string(), None))?;
            let given = answer
                .content
                .map_or(Value::Null, |content| content["context"].clone());
            Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                format!("Use this context: {}", given.as_str().unwrap_or("none")),
            )]))
        })
    }

    fn changes(&self) -> Option<watch::Receiver<u64>> {
        Some(PROMPTS_CHANGED.subscribe())
    }

    fn get_prompt(&self, name: String, arguments: JsonObject) -> PromptFuture<'_> {
        Box::pin(async move {
            let argument = |key: &str| {
                arguments
                    .get(key)
                    .and_then(|value| value.as_str())
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        ErrorData::invalid_params(format!("the argument `{key}` is required"), None)
                    })
            };
            let messages = match name.as_str() {
                "test_simple_prompt" => vec![PromptMessage::new_text(
                    Role::User,
                    "This is a simple prompt for testing.",
                )],
                "test_prompt_with_arguments" => vec![PromptMessage::new_text(
                    Role::User,
                    format!(
                        "Prompt with arguments: arg1='{}', arg2='{}'",
                        argument("arg1")?,
                        argument("arg2")?
                    ),
                )],
                "test_prompt_with_embedded_resource" => vec![
                    PromptMessage::new_resource(
                        Role::User,
                        argument("resourceUri")?,
                        Some("text/plain".to_owned()),
                        Some("Embedded resource content for testing.".to_owned()),
                        None,
                        None,
                        None,
                    ),
                    PromptMessage::new_text(
                        Role::User,
                        "Please process the embedded resource above.",
                    ),
                ],
                "test_prompt_with_image" => vec![
                    PromptMessage::new(Role::User, ContentBlock::image(RED_PIXEL_PNG, "image/png")),
                    PromptMessage::new_text(Role::User, "Please analyze the image above."),
                ],
                _ => {
                    return Err(ErrorData::invalid_params(
                        format!("no prompt named `{name}`"),
                        None,
                    ));
                }
            };
            Ok(GetPromptResult::new(messages))
        })
    }

    fn complete(
        &self,
        prompt: String,
        argument: String,
        value: String,
        _context: HashMap<String, String>,
    ) -> CompletionFuture<'_> {
        Box::pin(async move {
            if prompt != "test_prompt_with_arguments" || !["arg1", "arg2"].contains(&&*argument) {
                return Ok(Vec::new());
            }
            Ok(SUGGESTIONS
                .iter()
                .filter(|suggestion| suggestion.starts_with(&value))
                .map(|suggestion| (*suggestion).to_owned())
                .collect())
        })
    }
}
