use lazytool_runtime::tool;

#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Booking {
    room: String,
    guests: Option<u8>,
}

/// Books a room.
#[tool(example(rom = "Lovelace"), example(room = "Hopper", guests = 4))]
async fn book_room(#[args] booking: Booking) -> String {
    booking.room
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Desk {
    floor: u8,
}

/// Books a desk.
#[tool(example(floor = 2))]
async fn book_desk(#[args] desk: Desk) -> u8 {
    desk.floor
}

fn main() {}
