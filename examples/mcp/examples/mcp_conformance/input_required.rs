//! The suite's input-required tools (SEP-2322), written as a user would: each asks through its
//! [`ToolContext`] and returns the question's error with `?`. The same code asks a 2025-11-25
//! client directly and a 2026-07-28 client through input-required results.

use lazytool_runtime::{ElicitAction, Elicited, ToolContext, tool};
use serde_json::{Value, json};

/// A form of one string property.
fn form(property: &str) -> Value {
    json!({"type": "object", "properties": {property: {"type": "string"}}, "required": [property]})
}

/// The accepted form's `property`, or why there is none.
fn accepted(answer: &Elicited, property: &str) -> Result<String, String> {
    match (&answer.action, &answer.content) {
        (ElicitAction::Accept, Some(content)) => Ok(content[property]
            .as_str()
            .map_or_else(|| content[property].to_string(), str::to_owned)),
        (action, _) => Err(format!("the user did not answer ({action:?})")),
    }
}

/// Asks the user's name, then greets them.
#[tool]
async fn test_input_required_result_elicitation(ctx: ToolContext) -> Result<String, String> {
    let answer = ctx
        .elicit("user_name", "What is your name?", form("name"))
        .await?;
    Ok(format!("Hello, {}!", accepted(&answer, "name")?))
}

/// Asks the client's model a question.
#[tool]
async fn test_input_required_result_sampling(ctx: ToolContext) -> Result<String, String> {
    let answer = ctx
        .sample("capital_question", "What is the capital of France?", 100)
        .await?;
    Ok(format!(
        "The model said: {}",
        answer.text().unwrap_or_default()
    ))
}

/// Asks the client for its roots.
#[tool]
async fn test_input_required_result_list_roots(ctx: ToolContext) -> Result<String, String> {
    let roots = ctx.roots("client_roots").await?;
    let uris: Vec<String> = roots.into_iter().map(|root| root.uri).collect();
    Ok(format!("Roots: {}", uris.join(", ")))
}

/// Asks for a confirmation; the answer comes back with the round's state.
#[tool]
async fn test_input_required_result_request_state(ctx: ToolContext) -> Result<String, String> {
    let form = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
    let answer = ctx.elicit("confirm", "Confirm to go on.", form).await?;
    accepted(&answer, "ok")?;
    Ok("state-ok".to_owned())
}

/// Asks three questions at once: a name, a model's answer and the roots.
#[tool]
async fn test_input_required_result_multiple_inputs(ctx: ToolContext) -> Result<String, String> {
    let (name, capital, roots) = tokio::join!(
        ctx.elicit("user_name", "What is your name?", form("name")),
        ctx.sample("capital_question", "What is the capital of France?", 100),
        ctx.roots("client_roots"),
    );
    let (name, capital, roots) = (name?, capital?, roots?);
    Ok(format!(
        "{} asked; the model said {}; {} roots",
        accepted(&name, "name")?,
        capital.text().unwrap_or_default(),
        roots.len()
    ))
}

/// Asks a name, then (knowing it) a favourite colour: two rounds.
#[tool]
async fn test_input_required_result_multi_round(ctx: ToolContext) -> Result<String, String> {
    let name = ctx
        .elicit("step1", "Step 1: What is your name?", form("name"))
        .await?;
    let name = accepted(&name, "name")?;
    let question = format!("Step 2: What is your favourite colour, {name}?");
    let color = ctx.elicit("step2", &question, form("color")).await?;
    Ok(format!("{name} likes {}", accepted(&color, "color")?))
}

/// Asks for a confirmation: a retry with an altered `requestState` is refused by the server.
#[tool]
async fn test_input_required_result_tampered_state(ctx: ToolContext) -> Result<String, String> {
    let form = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
    let answer = ctx.elicit("confirm", "Confirm to go on.", form).await?;
    accepted(&answer, "ok")?;
    Ok("confirmed".to_owned())
}

/// Asks the user if it can, and the model: a client without elicitation is asked only the
/// model.
#[tool]
async fn test_input_required_result_capabilities(ctx: ToolContext) -> Result<String, String> {
    let (name, capital) = tokio::join!(
        ctx.elicit("user_name", "What is your name?", form("name")),
        ctx.sample("capital_question", "What is the capital of France?", 100),
    );
    let name = match name {
        Ok(answer) => accepted(&answer, "name")?,
        Err(lazytool_runtime::InputError::Unsupported { .. }) => "someone".to_owned(),
        Err(other) => return Err(other.into()),
    };
    Ok(format!("{name}: {}", capital?.text().unwrap_or_default()))
}

/// Needs the client's model: a client without sampling is refused (-32021).
#[tool]
async fn test_missing_capability(ctx: ToolContext) -> Result<String, String> {
    let answer = ctx.sample("question", "Say hello.", 20).await?;
    Ok(answer.text().unwrap_or_default().to_owned())
}

/// Asks the user, in the call's own response stream.
#[tool]
async fn test_streaming_elicitation(ctx: ToolContext) -> Result<String, String> {
    let answer = ctx
        .elicit("user_name", "What is your name?", form("name"))
        .await?;
    Ok(format!("Hello, {}!", accepted(&answer, "name")?))
}
