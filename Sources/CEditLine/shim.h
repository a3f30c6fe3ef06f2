#ifndef CEDITLINE_SHIM_H
#define CEDITLINE_SHIM_H

#include <stdio.h>
#include <editline/readline.h>

/// Setters for libedit's global settings, which Swift cannot assign safely itself.
typedef char **(*ceditline_completer)(const char *, int, int);

static inline void ceditline_set_completer(ceditline_completer completer) {
    rl_attempted_completion_function = completer;
}

static inline void ceditline_set_completion_over(int over) {
    rl_attempted_completion_over = over;
}

static inline void ceditline_set_name(const char *name) {
    rl_readline_name = name;
}

#endif
