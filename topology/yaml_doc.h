/*
 * yaml_doc.h - a YAML file as a small tree of scalars, sequences and
 * mappings, each node carrying its line and column, read with libyaml
 * under size and depth limits; typed getters whose errors read
 * "FILE:LINE:COL: what is wrong"; unknown-key checks with a suggestion
 * ("unknown key 'arty' (did you mean 'arity'?)").  The cluster schema
 * (yaml_cluster.c) is written on top of it.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_YAML_DOC_H
#define TM_YAML_DOC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

typedef enum tm_ynode_kind { TM_Y_SCALAR = 1, TM_Y_SEQ, TM_Y_MAP } tm_ynode_kind;

typedef struct tm_ynode tm_ynode_t;
struct tm_ynode {
	int kind;
	int64_t line, col;  /* 1-based, where the node starts */
	char *str;          /* scalar text (NUL-terminated) */
	int64_t n;          /* children of a sequence, pairs of a mapping */
	tm_ynode_t **items; /* sequence items, or mapping values */
	tm_ynode_t **keys;  /* mapping keys (scalars), in file order */
};

typedef struct tm_ydoc {
	const char *name; /* file name for messages (owned copy) */
	tm_ynode_t *root; /* NULL for an empty document */
} tm_ydoc_t;

/*
 * Fields <= 0 take the default.  Depth counts nested sequences/mappings
 * (the root container is level 1) and is capped at 10,000 whatever is
 * asked; every scalar, key and container counts as a node.
 */
typedef struct tm_ylimits {
	int64_t max_bytes; /* default 16 MiB */
	int max_depth;     /* default 64 */
	int64_t max_nodes; /* default 1,000,000 */
} tm_ylimits_t;

/*
 * Parse a whole file ("-" = stdin) or buffer; one document (a second one is
 * an error); anchors/aliases and tags refused with a message (an admin's
 * file has no use for them, and aliases can blow up sizes).  Duplicate keys
 * in a mapping are an error naming both lines; keys must be scalars.
 * limits may be NULL.  An empty file (or only comments, or a bare "---")
 * gives a document whose root is NULL.  On error *out is NULL.
 */
int tm_ydoc_load_file(const char *path, const tm_ylimits_t *limits, tm_ydoc_t **out,
		      char *err);
int tm_ydoc_load_buffer(const char *buf, size_t len, const char *name,
			const tm_ylimits_t *limits, tm_ydoc_t **out, char *err);
void tm_ydoc_free(tm_ydoc_t *d);

/* Value of key in a mapping node, or NULL (also when m is not a mapping). */
const tm_ynode_t *tm_ymap_get(const tm_ynode_t *m, const char *key);

/*
 * Check the keys of mapping m against `allowed` (NULL-terminated); the
 * first unknown one gives "FILE:LINE:COL: unknown key 'arty' (did you mean
 * 'arity'?)" (the suggestion when an allowed key is within edit distance 2,
 * or 1 for keys of up to 4 letters).  `what` names the mapping in the
 * message when m is not a mapping ("network: expected a mapping").
 */
int tm_ymap_check_keys(const tm_ydoc_t *d, const tm_ynode_t *m, const char *what,
		       const char *const *allowed, char *err);

/*
 * Typed getters of a scalar: an integer in [min, max], a finite double in
 * [min, max], a boolean (true/false/yes/no/on/off), a string.  Errors name
 * the node's position and `what` ("FILE:3:10: arity: expected an integer
 * in [1, 65536], got 'two'").  A NULL node gives "FILE: missing what".
 */
int tm_ynode_int(const tm_ydoc_t *d, const tm_ynode_t *s, const char *what, int64_t min,
		 int64_t max, int64_t *v, char *err);
int tm_ynode_double(const tm_ydoc_t *d, const tm_ynode_t *s, const char *what, double min,
		    double max, double *v, char *err);
int tm_ynode_bool(const tm_ydoc_t *d, const tm_ynode_t *s, const char *what, int *v,
		  char *err);
int tm_ynode_str(const tm_ydoc_t *d, const tm_ynode_t *s, const char *what, const char **v,
		 char *err);

/* "FILE:LINE:COL: " + message at a position (line <= 0: "FILE: "). */
int tm_vyerr_at(const tm_ydoc_t *d, int64_t line, int64_t col, char *err, int status,
		const char *fmt, va_list ap);
/* "FILE:LINE:COL: " + message for node s (s NULL: "FILE: "); returns status. */
int tm_yerr(const tm_ydoc_t *d, const tm_ynode_t *s, char *err, int status, const char *fmt,
	    ...) __attribute__((format(printf, 5, 6)));

/* Edit distance (Levenshtein) of two short strings, capped at cap + 1. */
int tm_edit_distance(const char *a, const char *b, int cap);

#endif /* TM_YAML_DOC_H */
