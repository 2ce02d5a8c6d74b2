//! report layer (in progress).
