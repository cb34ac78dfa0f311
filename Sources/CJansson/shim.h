#ifndef CHARTWIRE_CJANSSON_SHIM_H
#define CHARTWIRE_CJANSSON_SHIM_H

#include <jansson.h>

/* json_typeof, json_is_* and JSON_REAL_PRECISION are macros Swift cannot import. */
static inline int cw_json_typeof(const json_t *j) { return (int)json_typeof(j); }
static inline size_t cw_json_real_precision(int n) { return JSON_REAL_PRECISION(n); }
static inline void cw_json_decref(json_t *j) { json_decref(j); }

enum {
    CW_JSON_OBJECT = JSON_OBJECT,
    CW_JSON_ARRAY = JSON_ARRAY,
    CW_JSON_STRING = JSON_STRING,
    CW_JSON_INTEGER = JSON_INTEGER,
    CW_JSON_REAL = JSON_REAL,
    CW_JSON_TRUE = JSON_TRUE,
    CW_JSON_FALSE = JSON_FALSE,
    CW_JSON_NULL = JSON_NULL
};

#endif
