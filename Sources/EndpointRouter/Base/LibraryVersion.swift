/// The library's version, written once: the default `User-Agent` reads it, and a test checks that
/// `CHANGELOG.md` has a section for it.
package let libraryVersion = "0.1.0"
