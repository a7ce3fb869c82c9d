// For a doc-comment block that shows members of a service enum (`var method: RequestMethod { ... }`):
// the block is put inside `enum DocMembers`, whose host and endpoint come from DocService.
enum DocMembers: DocService, Equatable {
    case create, refresh, submitPayment, liveScore, timeline, list
    case upload(URL), login(user: String, password: String), user(String)

    static let credentials = CredentialStore(credential: { .bearer("token") }, refresh: { _ in .loggedOut })

    // @snippet
}
