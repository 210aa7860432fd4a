//! tantivy's BM25 with its `en_stem` analyser over one text field per tool: the query's
//! tokens, as tantivy's own analyser makes them, joined by OR (what its query parser does
//! with plain words, without the parser's syntax errors on `:` or quotes).

use tantivy::collector::TopDocs;
use tantivy::query::BooleanQuery;
use tantivy::schema::{
    Field, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Index, IndexReader, TantivyDocument, Term, doc};

pub struct TantivyEngine {
    reader: IndexReader,
    text: Field,
    position: Field,
    analyzer: TextAnalyzer,
}

impl TantivyEngine {
    pub fn new(texts: &[String]) -> tantivy::Result<TantivyEngine> {
        let mut schema = Schema::builder();
        let options = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer("en_stem")
                .set_index_option(IndexRecordOption::WithFreqs),
        );
        let text = schema.add_text_field("text", options);
        let position = schema.add_u64_field("position", STORED);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 50_000_000)?;
        for (at, body) in texts.iter().enumerate() {
            writer.add_document(doc!(text => body.as_str(), position => at as u64))?;
        }
        writer.commit()?;
        let analyzer = index.tokenizer_for_field(text)?;
        let reader = index.reader()?;
        Ok(TantivyEngine {
            reader,
            text,
            position,
            analyzer,
        })
    }

    pub fn search(&mut self, query: &str, limit: usize) -> tantivy::Result<Vec<usize>> {
        let mut terms = Vec::new();
        let mut stream = self.analyzer.token_stream(query);
        while stream.advance() {
            terms.push(Term::from_field_text(self.text, &stream.token().text));
        }
        terms.sort_unstable();
        terms.dedup();
        let query = BooleanQuery::new_multiterms_query(terms);
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(limit).order_by_score())?;
        top.into_iter()
            .map(|(_, address)| {
                let document: TantivyDocument = searcher.doc(address)?;
                Ok(document
                    .get_first(self.position)
                    .and_then(|value| value.as_u64())
                    .unwrap_or(u64::MAX) as usize)
            })
            .collect()
    }
}
