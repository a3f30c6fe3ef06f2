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

/// Completion words end at spaces only: `--from=now` and quotes are the completer's to read.
static inline void ceditline_break_words_at_spaces(void) {
    rl_basic_word_break_characters = " \t\n";
}

/// The line being edited, and the cursor's byte offset in it.
static inline const char *ceditline_line_buffer(void) {
    return rl_line_buffer;
}

static inline int ceditline_point(void) {
    return rl_point;
}

#endif
