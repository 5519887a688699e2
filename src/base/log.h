/* stderr-only logging for `shcard acp` (stdout belongs to the protocol writer).
 * A logger is a small value the caller owns and passes down; there is no global level. */
#ifndef SHC_LOG_H
#define SHC_LOG_H

typedef enum shc_log_level {
    SHC_LOG_ERROR = 0,
    SHC_LOG_WARN = 1,
    SHC_LOG_INFO = 2,
    SHC_LOG_DEBUG = 3,
} shc_log_level;

typedef struct shc_log {
    shc_log_level level; /* messages above this level are dropped */
    const char *prefix;  /* e.g. "shcard acp" (borrowed, static) */
} shc_log;

/* Parses "error", "warn", "info", "debug" (or 0-3).  Returns 0 or SHC_E_USAGE. */
int shc_log_parse_level(shc_log_level *out, const char *s);

/* Writes one line to stderr: "prefix: level: message".  NULL log = level warn. */
void shc_log_msg(const shc_log *log, shc_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define shc_log_error(l, ...) shc_log_msg((l), SHC_LOG_ERROR, __VA_ARGS__)
#define shc_log_warn(l, ...)  shc_log_msg((l), SHC_LOG_WARN, __VA_ARGS__)
#define shc_log_info(l, ...)  shc_log_msg((l), SHC_LOG_INFO, __VA_ARGS__)
#define shc_log_debug(l, ...) shc_log_msg((l), SHC_LOG_DEBUG, __VA_ARGS__)

#endif
