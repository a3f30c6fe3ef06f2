import Crypto
import Foundation

/// The Content-Security-Policy of the web viewer's pages: nothing is fetched but from the viewer
/// itself (`connect-src 'self'`, for its live updates and the parts of a long session), the one
/// script and the style sheets run by their hashes only, forms post only to the viewer, and no
/// other site may frame a page. Sent as a header; the pages repeat it in a `meta` element (less
/// `frame-ancestors`, which only the header can carry).
public enum ViewerPolicy {
    /// The policy of every response, as the `Content-Security-Policy` header.
    public static let header = meta + "; frame-ancestors 'none'"

    /// The policy as the pages' `meta` element states it.
    static let meta = "default-src 'none'; script-src '\(HTMLTemplates.scriptHash(ViewerScript.source))'; "
        + "style-src '\(HTMLTemplates.scriptHash(HTMLTemplates.style))' '\(HTMLTemplates.scriptHash(ViewerTemplates.style))'; "
        + "connect-src 'self'; base-uri 'none'; form-action 'self'"
}
