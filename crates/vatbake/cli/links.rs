//! The flag every command that reads a finished bake takes.

use clap::Args;

/// `--follow-links`, taken by every command that reads a finished bake.
#[derive(Args, Clone, Copy, Debug)]
pub struct Links {
    /// Read a bake's files through symbolic links that lead out of its folder (refused by default: a folder from elsewhere could make vatbake read any file).
    #[arg(long)]
    pub follow_links: bool,
}

impl Links {
    /// Sets the readers' rule for links that lead out of a bake's folder, for the rest
    /// of the run.
    pub fn apply(self) {
        vatbake::shipped::read::follow_links_out_of_folders(self.follow_links);
    }
}
