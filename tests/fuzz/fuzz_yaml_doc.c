/*
 * fuzz_yaml_doc.c - libFuzzer harness of the YAML document loader
 * (topology/yaml_doc.c over libyaml): any bytes, not NUL-terminated.  A
 * document that loads is walked (kinds, positions, strings, mapping keys)
 * and every scalar goes through the typed accessors.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"

#include "yaml_doc.h"

static int64_t walked;

static void walk(const tm_ydoc_t *d, const tm_ynode_t *y, int depth)
{
	char err[TOPOMATCH_ERRLEN];
	int64_t i;
	double x;
	int b;
	const char *s;

	FZ_ASSERT(y != NULL && depth <= 64 + 1);
	FZ_ASSERT(y->line >= 1 && y->col >= 1);
	if (++walked > 4096)
		return;
	switch (y->kind) {
	case TM_Y_SCALAR:
		FZ_ASSERT(y->str != NULL);
		fz_err_init(err);
		fz_check_err(tm_ynode_int(d, y, "value", INT64_MIN, INT64_MAX, &i, err), err);
		fz_err_init(err);
		fz_check_err(tm_ynode_double(d, y, "value", -1e300, 1e300, &x, err), err);
		fz_err_init(err);
		fz_check_err(tm_ynode_bool(d, y, "value", &b, err), err);
		fz_err_init(err);
		FZ_ASSERT(tm_ynode_str(d, y, "value", &s, err) == TOPOMATCH_OK && s);
		break;
	case TM_Y_SEQ:
		FZ_ASSERT(y->n >= 0 && (y->n == 0 || y->items));
		for (int64_t k = 0; k < y->n; k++)
			walk(d, y->items[k], depth + 1);
		break;
	case TM_Y_MAP: {
		static const char *const allowed[] = { "name", "nodes", "network", NULL };
		FZ_ASSERT(y->n >= 0 && (y->n == 0 || (y->items && y->keys)));
		for (int64_t k = 0; k < y->n; k++) {
			FZ_ASSERT(y->keys[k] && y->keys[k]->kind == TM_Y_SCALAR);
			FZ_ASSERT(tm_ymap_get(y, y->keys[k]->str) != NULL);
			walk(d, y->items[k], depth + 1);
		}
		fz_err_init(err);
		fz_check_err(tm_ymap_check_keys(d, y, "mapping", allowed, err), err);
		break;
	}
	default:
		FZ_ASSERT(!"unknown node kind");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[TOPOMATCH_ERRLEN];
	tm_ydoc_t *d = NULL;
	char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	fz_err_init(err);
	int rc = tm_ydoc_load_buffer(buf, size, "fuzz.yaml", NULL, &d, err);
	fz_check_err(rc, err);
	if (rc == TOPOMATCH_OK) {
		FZ_ASSERT(d != NULL);
		walked = 0;
		if (d->root)
			walk(d, d->root, 0);
		tm_ydoc_free(d);
	}
	free(buf);
	return 0;
}
