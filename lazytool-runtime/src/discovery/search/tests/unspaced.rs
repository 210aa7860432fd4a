//! Questions and catalogs in scripts written without spaces between words (Chinese,
//! Japanese, Korean, Thai): cut into pairs of characters, and found.

use super::super::analysis::words;
use super::small_index;

fn all_words(text: &str) -> Vec<&str> {
    words(text).collect()
}

#[test]
fn cuts_unspaced_scripts_into_pairs_of_characters() {
    assert_eq!(all_words("天気予報"), ["天気", "気予", "予報"]);
    assert_eq!(
        all_words("我想知道上海的天气。"),
        [
            "我想", "想知", "知道", "道上", "上海", "海的", "的天", "天气"
        ]
    );
    assert_eq!(
        all_words("用Python写代码"),
        ["用", "Python", "写代", "代码"]
    );
    assert_eq!(
        all_words("스테이크 만드는 법"),
        ["스테", "테이", "이크", "만드", "드는", "법"]
    );
    assert_eq!(all_words("カタカナ"), ["カタ", "タカ", "カナ"]);
    // Thai tone marks and vowel signs stay with the letter before them.
    assert_eq!(all_words("ช่วยหา"), ["ช่ว", "วย", "ยห", "หา"]);
    // Marks of other scripts keep their words whole.
    assert_eq!(all_words("चाय कैसे बनाएं?"), ["चाय", "कैसे", "बनाएं"]);
    assert_eq!(all_words("Créer un café"), ["Créer", "un", "café"]);
}

#[test]
fn questions_in_unspaced_scripts_find_tools_in_those_scripts() {
    let index = small_index(&[
        ("weather_cn", "查询城市的天气预报和温度。"),
        ("news_ko", "최신 뉴스 기사를 검색합니다."),
        ("tenki_ja", "指定した都市の天気予報を取得します。"),
        ("maid_th", "ค้นหาแม่บ้านที่ให้บริการรีดผ้า"),
        ("get_weather", "Current weather in a city."),
        ("send_email", "Sends an email."),
    ]);
    assert_eq!(index.search("我想知道上海目前的天气状况", 1), [0]);
    assert_eq!(index.search("최근 박지성에 관한 뉴스를 찾아줘.", 1), [1]);
    assert_eq!(index.search("東京の天気予報を教えて", 1), [2]);
    assert_eq!(index.search("ช่วยหาคุณแม่บ้านที่ให้บริการรีดผ้า", 1), [3]);
    // Latin words in a question of another script find English tools.
    assert_eq!(index.search("请帮我查一下 weather in 上海", 1), [4]);
    assert_eq!(index.search("メールをemailで送って", 1), [5]);
}

#[test]
fn no_unspaced_question_comes_back_empty_for_want_of_spaces() {
    let index = small_index(&[
        ("get_service_id", "บริการรีดผ้าและทำความสะอาด"),
        ("translate", "번역 서비스"),
    ]);
    for (query, found) in [
        ("ฉันต้องการรหัสบริการสำหรับบริการรีดผ้า", 0),
        ("이 문장을 번역해 주세요", 1),
    ] {
        assert_eq!(index.search(query, 5).first(), Some(&found), "{query}");
    }
}
