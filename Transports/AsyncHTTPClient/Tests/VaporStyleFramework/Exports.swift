// The lines of Vapor 4's Exports.swift that concern EndpointRouter's names: every file that imports
// Vapor sees AsyncHTTPClient's `HTTPClient` and `HTTPClientError` and NIOHTTP1's `HTTPHeaders` and
// `HTTPMethod` without importing those modules. Scoped imports such as these are preferred over a
// whole module's declarations of the same name, so an unqualified `HTTPClient` in such a file is
// AsyncHTTPClient's, with no "ambiguous" error.
@_documentation(visibility: internal) @_exported import class AsyncHTTPClient.HTTPClient
@_documentation(visibility: internal) @_exported import struct AsyncHTTPClient.HTTPClientError
@_documentation(visibility: internal) @_exported import struct NIOHTTP1.HTTPHeaders
@_documentation(visibility: internal) @_exported import enum NIOHTTP1.HTTPMethod
@_documentation(visibility: internal) @_exported import enum NIOHTTP1.HTTPResponseStatus
@_documentation(visibility: internal) @_exported import struct NIOHTTP1.HTTPVersion
