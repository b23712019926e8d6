//! The plain data the pictures are made of and from: meshes, frames, bounds, views,
//! images, errors and the size limits.

/// The largest width or height of any picture this crate makes, in pixels.
pub const MAX_SIDE: u32 = 32_768;
/// The largest number of pixels of any picture this crate makes (256 MiB of RGBA).
pub const MAX_PIXELS: u64 = 1 << 26;

/// What went wrong. Every odd input gives one of these, never a panic.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A frame's positions and normals do not have one entry each per point.
    #[error("a frame has {positions} positions but {normals} normals")]
    NormalCount {
        /// Positions in the frame.
        positions: usize,
        /// Normals in the frame.
        normals: usize,
    },
    /// A triangle names a point the frame does not have.
    #[error("triangle {triangle} uses point {index}, but the frame has {points} points")]
    IndexOutOfRange {
        /// Index of the triangle in [`Mesh::triangles`].
        triangle: usize,
        /// The point index it uses.
        index: u32,
        /// Points in the frame.
        points: usize,
    },
    /// Bounds with a non-finite coordinate or a minimum above the maximum.
    #[error("bounds {min:?}..{max:?} are not a box (non-finite, or min above max)")]
    InvalidBounds {
        /// The minimum corner given.
        min: [f32; 3],
        /// The maximum corner given.
        max: [f32; 3],
    },
    /// A picture of zero width or height, or too large to make.
    #[error("a {width}x{height} picture is out of range (each side 1..={MAX_SIDE}, at most {MAX_PIXELS} pixels)")]
    Size {
        /// Width asked for.
        width: u64,
        /// Height asked for.
        height: u64,
    },
    /// Zero frames per clip asked for.
    #[error("a contact sheet needs at least one frame per clip")]
    NoFrames,
    /// Nothing to animate.
    #[error("an animation needs at least one row")]
    NoRows,
    /// A playback rate that is not a positive finite number of rows per second.
    #[error("rate {0} is not a positive number of rows per second")]
    Rate(f32),
    /// Texel data whose length is not `width × height × 4`.
    #[error("{len} texel values do not make a {width}x{height} RGBA texture")]
    TextureSize {
        /// Values given.
        len: usize,
        /// Width given.
        width: u32,
        /// Height given.
        height: u32,
    },
    /// An [`Image`] whose pixel bytes are not `width × height × 4`.
    #[error("{len} bytes are not the pixels of a {width}x{height} RGBA picture")]
    PixelCount {
        /// Bytes given.
        len: usize,
        /// Width given.
        width: u32,
        /// Height given.
        height: u32,
    },
    /// A base colour texture that cannot be read, or a surface that names a missing
    /// material, texture or uv.
    #[error("image: {0}")]
    Image(String),
    /// The PNG encoder failed.
    #[error("PNG encoding failed: {0}")]
    Png(#[from] png::EncodingError),
}

/// Which way the camera looks. glTF axes: +Y up, +Z the model's front.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum View {
    /// From the front, looking along −Z: +X to the right, +Y up.
    #[default]
    Front,
    /// From the model's +X side, looking along −X: +Y up, and the model's front (+Z)
    /// to the left of the picture.
    Side,
    /// From above, looking down along −Y: +X to the right, the model's front (+Z)
    /// toward the bottom of the picture.
    Top,
}

impl View {
    /// The view's name, as the command line spells it.
    ///
    /// ```
    /// assert_eq!(vat_preview::View::Side.name(), "side");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            View::Front => "front",
            View::Side => "side",
            View::Top => "top",
        }
    }

    /// A view from its name (`front`, `side` or `top`).
    ///
    /// ```
    /// assert_eq!(vat_preview::View::from_name("top"), Some(vat_preview::View::Top));
    /// ```
    pub fn from_name(name: &str) -> Option<View> {
        match name {
            "front" => Some(View::Front),
            "side" => Some(View::Side),
            "top" => Some(View::Top),
            _ => None,
        }
    }

    /// One line saying where the camera is, as written on a sheet.
    pub fn describe(self) -> &'static str {
        match self {
            View::Front => "front view: looking along -Z, +X right, +Y up",
            View::Side => "side view: looking along -X, +Z left, +Y up",
            View::Top => "top view: looking along -Y, +X right, +Z down",
        }
    }
}

/// The rest mesh's triangles, as indices into a frame's points.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mesh {
    /// Three point indices per triangle. The winding does not matter.
    pub triangles: Vec<[u32; 3]>,
}

/// One row of a bake: the decoded position and normal of every point.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    /// Position of each point, in model units.
    pub positions: &'a [[f32; 3]],
    /// Normal of each point (need not be unit length), one per position.
    pub normals: &'a [[f32; 3]],
}

/// An axis-aligned box in model units: what the camera frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Smallest x, y and z.
    pub min: [f32; 3],
    /// Largest x, y and z.
    pub max: [f32; 3],
}

impl Bounds {
    /// The box from its centre and half-size (as a bake's description records them).
    ///
    /// ```
    /// let b = vat_preview::Bounds::from_center_half_extent([0.0, 1.0, 0.0], [0.5, 1.0, 0.5]);
    /// assert_eq!(b.min, [-0.5, 0.0, -0.5]);
    /// assert_eq!(b.max, [0.5, 2.0, 0.5]);
    /// ```
    pub fn from_center_half_extent(center: [f32; 3], half_extent: [f32; 3]) -> Bounds {
        Bounds {
            min: std::array::from_fn(|i| center[i] - half_extent[i]),
            max: std::array::from_fn(|i| center[i] + half_extent[i]),
        }
    }

    /// The box around the finite points given, or `None` when none is finite.
    ///
    /// ```
    /// let b = vat_preview::Bounds::of_points(&[[1.0, 2.0, 3.0], [f32::NAN, 0.0, 0.0], [-1.0, 0.0, 5.0]]).unwrap();
    /// assert_eq!((b.min, b.max), ([-1.0, 0.0, 3.0], [1.0, 2.0, 5.0]));
    /// ```
    pub fn of_points(points: &[[f32; 3]]) -> Option<Bounds> {
        let mut finite = points.iter().filter(|p| p.iter().all(|c| c.is_finite()));
        let first = *finite.next()?;
        let mut bounds = Bounds { min: first, max: first };
        for p in finite {
            bounds.min = std::array::from_fn(|i| bounds.min[i].min(p[i]));
            bounds.max = std::array::from_fn(|i| bounds.max[i].max(p[i]));
        }
        Some(bounds)
    }

    /// Checks that the box is finite and not inside out.
    pub(crate) fn check(&self) -> Result<(), Error> {
        let finite = self.min.iter().chain(&self.max).all(|c| c.is_finite());
        if finite && (0..3).all(|i| self.min[i] <= self.max[i]) {
            Ok(())
        } else {
            Err(Error::InvalidBounds { min: self.min, max: self.max })
        }
    }
}

/// An 8-bit RGBA picture, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Four bytes (R, G, B, A) per pixel, row by row from the top.
    pub pixels: Vec<u8>,
}

impl Image {
    /// A picture of one colour. Errors when a side is zero or the picture is too large
    /// ([`MAX_SIDE`], [`MAX_PIXELS`]).
    ///
    /// ```
    /// let image = vat_preview::Image::filled(2, 3, [1, 2, 3, 255])?;
    /// assert_eq!(image.pixel(1, 2), Some([1, 2, 3, 255]));
    /// assert_eq!(image.pixel(2, 0), None);
    /// # Ok::<(), vat_preview::Error>(())
    /// ```
    pub fn filled(width: u32, height: u32, colour: [u8; 4]) -> Result<Image, Error> {
        check_size(width as u64, height as u64)?;
        Ok(Image { width, height, pixels: colour.repeat(width as usize * height as usize) })
    }

    /// The pixel at column `x` and row `y`, or `None` outside the picture.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        self.pixels.get(i..i + 4).map(|p| [p[0], p[1], p[2], p[3]])
    }

    /// The picture enlarged `factor` times on each side, each pixel becoming a
    /// `factor × factor` square (for a small texture picture). Errors when `factor` is
    /// zero or the result too large.
    ///
    /// ```
    /// let image = vat_preview::Image::filled(2, 1, [9, 9, 9, 255])?.scaled(3)?;
    /// assert_eq!((image.width, image.height), (6, 3));
    /// # Ok::<(), vat_preview::Error>(())
    /// ```
    pub fn scaled(&self, factor: u32) -> Result<Image, Error> {
        self.check()?;
        let (width, height) = (self.width as u64 * factor as u64, self.height as u64 * factor as u64);
        check_size(width, height)?;
        let mut pixels = Vec::with_capacity((width * height * 4) as usize);
        for y in 0..height {
            let row = (y / factor as u64) as usize * self.width as usize * 4;
            for x in 0..self.width as usize {
                let p = &self.pixels[row + x * 4..row + x * 4 + 4];
                for _ in 0..factor {
                    pixels.extend_from_slice(p);
                }
            }
        }
        Ok(Image { width: width as u32, height: height as u32, pixels })
    }

    /// Errors unless the size is allowed and the bytes are four per pixel.
    pub(crate) fn check(&self) -> Result<(), Error> {
        check_size(self.width as u64, self.height as u64)?;
        if self.pixels.len() as u64 != self.width as u64 * self.height as u64 * 4 {
            return Err(Error::PixelCount { len: self.pixels.len(), width: self.width, height: self.height });
        }
        Ok(())
    }

    /// Sets the pixel at (`x`, `y`); does nothing outside the picture.
    pub(crate) fn put(&mut self, x: i64, y: i64, colour: [u8; 4]) {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        self.pixels[i..i + 4].copy_from_slice(&colour);
    }

    /// Fills the rectangle at (`x`, `y`) of `w × h` pixels, clipped to the picture.
    pub(crate) fn fill_rect(&mut self, x: i64, y: i64, w: i64, h: i64, colour: [u8; 4]) {
        for row in y.max(0)..(y + h).min(self.height as i64) {
            for column in x.max(0)..(x + w).min(self.width as i64) {
                self.put(column, row, colour);
            }
        }
    }

    /// Copies `other` with its top-left corner at (`x`, `y`), clipped to the picture.
    pub(crate) fn blit(&mut self, other: &Image, x: i64, y: i64) {
        for row in 0..other.height as i64 {
            let target_y = y + row;
            if target_y < 0 || target_y >= self.height as i64 {
                continue;
            }
            for column in 0..other.width as i64 {
                if let Some(p) = other.pixel(column as u32, row as u32) {
                    self.put(x + column, target_y, p);
                }
            }
        }
    }
}

/// Errors unless `width × height` is a picture this crate may make.
pub(crate) fn check_size(width: u64, height: u64) -> Result<(), Error> {
    let side = 1..=MAX_SIDE as u64;
    if side.contains(&width) && side.contains(&height) && width * height <= MAX_PIXELS {
        Ok(())
    } else {
        Err(Error::Size { width, height })
    }
}
