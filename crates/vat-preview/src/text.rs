//! Labels, in Noto Sans Mono at 16 pixels (glyphs compiled in, one byte of coverage per
//! pixel).

use noto_sans_mono_bitmap::{get_raster, get_raster_width, FontWeight, RasterHeight};

use crate::types::Image;

const WEIGHT: FontWeight = FontWeight::Regular;
const HEIGHT: RasterHeight = RasterHeight::Size16;

/// Height of one line of label text, in pixels.
pub const LINE_HEIGHT: u32 = 16;

/// Width in pixels of `text` as labels draw it (the font is monospaced; characters
/// outside Basic Latin are drawn as `?`).
///
/// ```
/// assert_eq!(vat_preview::text_width("idle"), 4 * vat_preview::text_width("x"));
/// ```
pub fn text_width(text: &str) -> u32 {
    text.chars().count() as u32 * get_raster_width(WEIGHT, HEIGHT) as u32
}

/// Draws `text` with its top-left corner at (`x`, `y`), blending `colour` over what is
/// there by each glyph pixel's coverage; returns the width drawn.
pub(crate) fn draw_text(image: &mut Image, x: i64, y: i64, text: &str, colour: [u8; 3]) -> u32 {
    let advance = get_raster_width(WEIGHT, HEIGHT) as i64;
    let mut pen = x;
    for c in text.chars() {
        let glyph = get_raster(c, WEIGHT, HEIGHT).or_else(|| get_raster('?', WEIGHT, HEIGHT));
        if let Some(glyph) = glyph {
            for (row, coverage) in glyph.rows().enumerate() {
                for (column, &a) in coverage.iter().enumerate() {
                    let (px, py) = (pen + column as i64, y + row as i64);
                    if a == 0 || px < 0 || py < 0 {
                        continue;
                    }
                    if let Some(under) = image.pixel(px as u32, py as u32) {
                        let a = a as u32;
                        let mix = |fg: u8, bg: u8| ((fg as u32 * a + bg as u32 * (255 - a) + 127) / 255) as u8;
                        image.put(
                            px,
                            py,
                            [mix(colour[0], under[0]), mix(colour[1], under[1]), mix(colour[2], under[2]), 255],
                        );
                    }
                }
            }
        }
        pen += advance;
    }
    (pen - x) as u32
}

/// `text` cut to at most `max` characters, ending in `...` when cut.
pub(crate) fn fit(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max.saturating_sub(3)).collect();
    format!("{kept}...")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_drawn_in_its_box_only() {
        let mut image = Image::filled(100, 30, [255; 4]).unwrap();
        let width = draw_text(&mut image, 10, 5, "Walk", [0, 0, 0]);
        assert_eq!(width, text_width("Walk"));
        let mut inked = 0;
        for y in 0..30 {
            for x in 0..100 {
                if image.pixel(x, y) != Some([255; 4]) {
                    inked += 1;
                    assert!((10..10 + width).contains(&x) && (5..5 + LINE_HEIGHT).contains(&y), "ink at {x},{y}");
                }
            }
        }
        assert!(inked > 40, "only {inked} pixels inked");
        // Fully covered glyph pixels take the text colour.
        assert!(image.pixels.chunks(4).any(|p| p == [0, 0, 0, 255]));
    }

    #[test]
    fn unknown_characters_draw_as_question_marks() {
        let mut a = Image::filled(40, 20, [255; 4]).unwrap();
        let mut b = a.clone();
        draw_text(&mut a, 0, 0, "ä", [0, 0, 0]);
        draw_text(&mut b, 0, 0, "?", [0, 0, 0]);
        assert_eq!(a, b);
    }

    #[test]
    fn long_text_is_cut_with_dots() {
        assert_eq!(fit("Survey", 6), "Survey");
        assert_eq!(fit("Survey_long", 8), "Surve...");
        assert_eq!(fit("abc", 2), "...");
    }
}
