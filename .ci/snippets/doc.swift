// The imports of a block in a `///` doc comment (the default for those blocks): the library, its
// testing product, and DocFixtures (.ci/snippets/doc-fixtures), which declares what the examples
// name without declaring.
import DocFixtures
import EndpointRouter
import EndpointRouterTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
