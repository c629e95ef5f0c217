//! Flow-insensitive points-to analysis.
