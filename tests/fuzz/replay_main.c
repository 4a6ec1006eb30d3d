/*
 * replay_main.c - a main() for the harnesses without libFuzzer: runs
 * LLVMFuzzerTestOneInput() once on every file named on the command line,
 * and on every regular file inside the directories named there (one
 * level, in name order), so that a compiler without libFuzzer (gcc) can at
 * least replay the seed corpora and the regression inputs.  Options
 * starting with '-' (libFuzzer's) are ignored.  Exit 0 when every input ran
 * (a crash aborts the process), 1 when an input cannot be read.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static long ran;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	size_t cap = 4096, len = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (!buf || bad) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		free(buf);
		return 1;
	}
	/* an exact-size copy, so that ASan sees any read past the input */
	uint8_t *in = malloc(len ? len : 1);
	if (!in) {
		free(buf);
		return 1;
	}
	memcpy(in, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(in, len);
	free(in);
	ran++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*names));
			if (!nn)
				abort();
			names = nn;
		}
		if (asprintf(&names[n], "%s/%s", dir, e->d_name) < 0)
			abort();
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			rc |= run_file(names[i]);
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (argv[i][0] == '-')
			continue;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			rc |= run_dir(argv[i]);
		} else {
			rc |= run_file(argv[i]);
		}
	}
	fprintf(stderr, "replay: %ld inputs\n", ran);
	return rc;
}
