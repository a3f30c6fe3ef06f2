#ifndef CCMARKGFM_SHIM_H
#define CCMARKGFM_SHIM_H

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>

/// The declarations the extension header holds among many internal ones: finding an extension
/// by name, attaching it to a parser, a node's type as text ("table", "heading").
cmark_syntax_extension *cmark_find_syntax_extension(const char *name);
int cmark_parser_attach_syntax_extension(cmark_parser *parser, cmark_syntax_extension *extension);
cmark_llist *cmark_parser_get_syntax_extensions(cmark_parser *parser);
const char *cmark_node_get_type_string(cmark_node *node);

/// A parser with GitHub's extensions attached (tables, strikethrough, autolinks, the tag filter,
/// task lists). The core extensions must have been registered (once, before any parser).
static inline cmark_parser *ccmark_gfm_parser(int options) {
    cmark_parser *parser = cmark_parser_new(options);
    const char *names[] = {"table", "strikethrough", "autolink", "tagfilter", "tasklist"};
    for (unsigned index = 0; index < sizeof names / sizeof names[0]; index++) {
        cmark_syntax_extension *extension = cmark_find_syntax_extension(names[index]);
        if (extension) cmark_parser_attach_syntax_extension(parser, extension);
    }
    return parser;
}

#endif
