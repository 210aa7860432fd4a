//! `tracing` spans captured with their fields, for the OpenTelemetry span tests.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// One closed span: its name, its fields as recorded (strings unquoted, other values as
/// their `Debug`), and the messages of the events emitted inside it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CapturedSpan {
    /// The span's (static) name.
    pub name: String,
    /// Its fields, including those recorded after it was created.
    pub fields: BTreeMap<String, String>,
    /// The `message` of each event emitted while it was entered.
    pub events: Vec<String>,
}

/// The spans `run` closes, in the order they closed, captured at every level.
pub fn captured_spans(run: impl FnOnce()) -> Vec<CapturedSpan> {
    let closed = Arc::new(Mutex::new(Vec::new()));
    let subscriber = tracing_subscriber::registry().with(Capture {
        closed: Arc::clone(&closed),
    });
    tracing::subscriber::with_default(subscriber, run);
    closed
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

struct Capture {
    closed: Arc<Mutex<Vec<CapturedSpan>>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, context: Context<'_, S>) {
        let mut span = CapturedSpan {
            name: attributes.metadata().name().to_owned(),
            ..CapturedSpan::default()
        };
        attributes.record(&mut Fields(&mut span.fields));
        if let Some(entry) = context.span(id) {
            entry.extensions_mut().insert(span);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, context: Context<'_, S>) {
        if let Some(entry) = context.span(id)
            && let Some(span) = entry.extensions_mut().get_mut::<CapturedSpan>()
        {
            values.record(&mut Fields(&mut span.fields));
        }
    }

    fn on_event(&self, event: &Event<'_>, context: Context<'_, S>) {
        if let Some(entry) = context.event_span(event)
            && let Some(span) = entry.extensions_mut().get_mut::<CapturedSpan>()
        {
            let mut fields = BTreeMap::new();
            event.record(&mut Fields(&mut fields));
            span.events.extend(fields.remove("message"));
        }
    }

    fn on_close(&self, id: Id, context: Context<'_, S>) {
        if let Some(entry) = context.span(&id)
            && let Some(span) = entry.extensions_mut().remove::<CapturedSpan>()
        {
            self.closed
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push(span);
        }
    }
}
