import EndpointRouter

// Which `OutgoingRequest`, `IncomingResponse`, … this module means: EndpointRouter's. A module's own
// declarations win over imported ones, so this one file settles the names for every file of the
// module, whatever else a file imports (HTTPTypes here, as in a Hummingbird 2 or
// swift-openapi-runtime app). The other module's types stay reachable by their qualified names:
// `HTTPTypes.HTTPRequest`. This is the recipe of the ServerApps article.
typealias HTTPClient = EndpointRouter.HTTPClient
typealias HTTPClientError = EndpointRouter.HTTPClientError
typealias RequestMethod = EndpointRouter.RequestMethod
typealias HeaderFields = EndpointRouter.HeaderFields
typealias OutgoingRequest = EndpointRouter.OutgoingRequest
typealias IncomingResponse = EndpointRouter.IncomingResponse
typealias ResponseHead = EndpointRouter.ResponseHead
