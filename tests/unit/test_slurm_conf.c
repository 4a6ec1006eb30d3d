/*
 * test_slurm_conf.c - unit tests of the slurm.conf node reader: a file as
 * configurator.html writes it, NodeName=DEFAULT accumulation, CPUs-only
 * and Boards inference, case-insensitive keys, comments, escapes and
 * continuations, relative Includes, each class of error with its message
 * and position, duplicated nodes, lookups of zero-padded names, the byte
 * limit and NUL bytes, and 100,000 one-node lines.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "tmtest.h"

#include "slurm_conf.h"
#include "base/tm_internal.h"

#include <stdint.h>
#include <unistd.h>

/* Write len bytes of text to a temporary file and read it; the file is removed. */
static int read_text(const char *text, size_t len, tm_slurm_conf_t *c, char *err)
{
	char path[] = "/tmp/tm_slurm_conf_XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	int rc = tm_slurm_conf_read(path, c, err);
	unlink(path);
	return rc;
}

/* text must read fine. */
static void text_ok(const char *text, tm_slurm_conf_t *c)
{
	char err[TOPOMATCH_ERRLEN] = "";
	int rc = read_text(text, strlen(text), c, err);

	ck_assert_msg(rc == TOPOMATCH_OK, "'%s': %s", text, err);
}

/*
 * text must fail with status rc and a message containing want; nothing is
 * left to free.  The message goes to err (TOPOMATCH_ERRLEN) when not NULL.
 */
static void text_fails_err(const char *text, int rc, const char *want, char *err)
{
	tm_slurm_conf_t c;
	char mine[TOPOMATCH_ERRLEN] = "";
	int got;

	if (!err)
		err = mine;
	got = read_text(text, strlen(text), &c, err);
	ck_assert_msg(got == rc, "'%s': status %d, want %d (%s)", text, got, rc, err);
	ck_assert_int_eq(c.n, 0);
	ck_assert_ptr_null(c.node);
	ck_assert_ptr_null(c.files);
	ck_assert_contains(err, want);
}

static void text_fails(const char *text, int rc, const char *want)
{
	text_fails_err(text, rc, want, NULL);
}

/* err must end with tail. */
static void check_ends(const char *err, const char *tail)
{
	size_t n = strlen(err), t = strlen(tail);

	ck_assert_msg(n >= t && !strcmp(err + n - t, tail), "'%s' does not end with '%s'", err,
		      tail);
}

/* Read a file of tests/data/slurm_conf that must be valid. */
static void file_ok(const char *name, tm_slurm_conf_t *c)
{
	char rel[256], err[TOPOMATCH_ERRLEN] = "";

	snprintf(rel, sizeof(rel), "slurm_conf/%s", name);
	int rc = tm_slurm_conf_read(tm_data(rel), c, err);
	ck_assert_msg(rc == TOPOMATCH_OK, "%s: %s", name, err);
}

/* A file of tests/data/slurm_conf must fail with rc and exactly "<dir>/" + want. */
static void file_fails(const char *name, int rc, const char *want)
{
	tm_slurm_conf_t c;
	char rel[256], dir[4200], full[4600], err[TOPOMATCH_ERRLEN] = "";

	snprintf(dir, sizeof(dir), "%s", tm_data("slurm_conf"));
	snprintf(rel, sizeof(rel), "slurm_conf/%s", name);
	int got = tm_slurm_conf_read(tm_data(rel), &c, err);
	ck_assert_msg(got == rc, "%s: status %d, want %d (%s)", name, got, rc, err);
	ck_assert_ptr_null(c.node);
	snprintf(full, sizeof(full), "%s/%s", dir, want);
	ck_assert_str_eq(err, full);
}

/* Entry i: its names and effective Boards, Sockets, CoresPerSocket, ThreadsPerCore, CPUs. */
static void check_node(const tm_slurm_conf_t *c, int64_t i, const char *names, int b, int s,
		       int co, int t, int cpus)
{
	ck_assert_int_lt(i, c->n);
	const tm_slurm_node_t *d = &c->node[i];
	ck_assert_str_eq(d->names, names);
	ck_assert_msg(d->boards == b && d->sockets == s && d->cores_per_socket == co &&
			      d->threads_per_core == t && d->cpus == cpus,
		      "%s: B=%d S=%d C=%d T=%d CPUs=%d, want %d %d %d %d %d", names, d->boards,
		      d->sockets, d->cores_per_socket, d->threads_per_core, d->cpus, b, s, co, t,
		      cpus);
}

START_TEST(basic_file)
{
	tm_slurm_conf_t c;

	file_ok("basic.conf", &c);
	ck_assert_str_eq(c.cluster_name, "testcluster"); /* lower-cased, as slurmctld does */
	ck_assert_int_eq(c.n, 3);
	ck_assert_int_eq(c.nnames, 133);
	ck_assert_int_eq(c.nfiles, 1);
	check_node(&c, 0, "n[001-128]", 1, 2, 12, 2, 48);
	check_node(&c, 1, "gpu[01-04]", 1, 2, 16, 1, 32); /* Boards x SocketsPerBoard */
	check_node(&c, 2, "login1", 1, 8, 1, 1, 8);
	ck_assert_int_eq(tm_hostlist_count(c.node[0].hosts), 128);
	ck_assert_ptr_eq(c.node[0].file, c.files[0]);
	ck_assert_int_eq(c.node[0].line, 9);
	ck_assert_int_eq(c.node[0].col, 10);
	ck_assert_int_eq(c.node[2].line, 11);
	tm_slurm_conf_free(&c);
	tm_slurm_conf_free(&c); /* freeing twice is harmless */
}
END_TEST

START_TEST(defaults)
{
	tm_slurm_conf_t c;

	file_ok("defaults.conf", &c);
	ck_assert_ptr_null(c.cluster_name);
	ck_assert_int_eq(c.n, 5);
	check_node(&c, 0, "z0", 1, 1, 1, 1, 1);        /* defaults do not reach back */
	check_node(&c, 1, "a[1-4]", 1, 2, 8, 2, 32);
	check_node(&c, 2, "b[1-2]", 1, 2, 16, 2, 64);  /* the line wins over DEFAULT */
	check_node(&c, 3, "c1", 1, 2, 8, 1, 16);       /* the second DEFAULT added to the first */
	check_node(&c, 4, "d1", 1, 2, 8, 1, 16);       /* DEFAULT CPUs before the line's Procs */
	tm_slurm_conf_free(&c);
}
END_TEST

START_TEST(cpus_only)
{
	tm_slurm_conf_t c;

	file_ok("cpus_only.conf", &c);
	ck_assert_int_eq(c.n, 5);
	check_node(&c, 0, "a[1-2]", 1, 48, 1, 1, 48); /* Slurm: Sockets = CPUs */
	check_node(&c, 1, "b1", 1, 2, 12, 2, 48);
	check_node(&c, 2, "d1", 1, 2, 12, 2, 24);     /* CPUs = Sockets x CoresPerSocket */
	check_node(&c, 3, "p1", 1, 4, 1, 1, 4);       /* Procs, the old name of CPUs */
	check_node(&c, 4, "bare", 1, 1, 1, 1, 1);
	tm_slurm_conf_free(&c);

	/* a CPUs that does not divide: one socket per board, then no match */
	text_fails("NodeName=e1 CPUs=10 CoresPerSocket=4\n", TOPOMATCH_EPARSE,
		   ":1:10: NodeName=e1: CPUs=10 matches none of Sockets (1), Sockets x "
		   "CoresPerSocket (4), Sockets x CoresPerSocket x ThreadsPerCore (4)");
}
END_TEST

START_TEST(boards)
{
	tm_slurm_conf_t c;

	file_ok("boards.conf", &c);
	ck_assert_int_eq(c.n, 3);
	check_node(&c, 0, "bb[1-2]", 2, 4, 8, 1, 32);
	check_node(&c, 1, "bc1", 2, 2, 4, 1, 8);
	check_node(&c, 2, "bd1", 2, 4, 4, 1, 16);
	tm_slurm_conf_free(&c);
}
END_TEST

START_TEST(mixed_case)
{
	tm_slurm_conf_t c;

	file_ok("mixed_case.conf", &c);
	ck_assert_str_eq(c.cluster_name, "mixed");
	ck_assert_int_eq(c.n, 2);
	check_node(&c, 0, "m[1-2]", 1, 2, 4, 1, 8);
	check_node(&c, 1, "m3", 1, 4, 1, 1, 4); /* "nodename=default" is DEFAULT */
	/* node names keep their case: they are the one case-sensitive thing */
	ck_assert_int_eq(tm_slurm_conf_find(&c, "m3"), 1);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "M3"), -1);
	tm_slurm_conf_free(&c);
}
END_TEST

START_TEST(comments_continuations)
{
	tm_slurm_conf_t c;

	file_ok("comments.conf", &c);
	ck_assert_int_eq(c.n, 3);
	check_node(&c, 0, "k[1-2]", 1, 2, 6, 1, 12); /* three physical lines */
	check_node(&c, 1, "k3", 1, 1, 3, 1, 3);      /* blanks around '=', "\#" in quotes */
	check_node(&c, 2, "k4", 1, 2, 1, 1, 2);      /* "Sockets=\" + "2" is Sockets=2 */
	ck_assert_int_eq(c.node[1].line, 7);
	ck_assert_int_eq(c.node[1].col, 12);
	tm_slurm_conf_free(&c);

	/* blanks after the backslash, CRLF ends, a comment-only file part */
	text_ok("NodeName=k5 Sockets=2 \\   \r\n   CoresPerSocket=2 # done\r\n#\r\n", &c);
	check_node(&c, 0, "k5", 1, 2, 2, 1, 4);
	tm_slurm_conf_free(&c);
	/* an even number of backslashes does not continue: line 2 is a line of its own */
	text_ok("NodeName=k6 Reason=a\\\\\nSockets=2\n", &c);
	check_node(&c, 0, "k6", 1, 1, 1, 1, 1);
	tm_slurm_conf_free(&c);
	/* an odd number does, keeping "\\" as one backslash of the value; the
	 * parts join with nothing between them, so the blank must be written */
	text_ok("NodeName=k7 Reason=a\\\\\\\n Sockets=2\n", &c);
	check_node(&c, 0, "k7", 1, 2, 1, 1, 2);
	tm_slurm_conf_free(&c);
	/* numbers read like strtoul(..., 0), as Slurm reads them */
	text_ok("NodeName=o1 Sockets=0x2 CoresPerSocket=010 ThreadsPerCore=+1\n", &c);
	check_node(&c, 0, "o1", 1, 2, 8, 1, 16);
	tm_slurm_conf_free(&c);
	/* an empty file and a file of comments have no nodes */
	text_ok("", &c);
	ck_assert_int_eq(c.n, 0);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "x"), -1);
	tm_slurm_conf_free(&c);
	text_ok("# nothing\n\n   \n", &c);
	ck_assert_int_eq(c.n, 0);
	tm_slurm_conf_free(&c);
}
END_TEST

START_TEST(include_relative)
{
	tm_slurm_conf_t c;
	char inc[4300];

	file_ok("main_include.conf", &c);
	ck_assert_str_eq(c.cluster_name, "inc");
	ck_assert_int_eq(c.nfiles, 4);
	ck_assert_int_eq(c.n, 4);
	/* DEFAULT set in an included file holds after it, as in Slurm */
	check_node(&c, 0, "deep1", 1, 1, 4, 1, 4);
	check_node(&c, 1, "i[1-2]", 1, 2, 4, 1, 8);
	check_node(&c, 2, "cn1", 1, 3, 4, 1, 12); /* "inc/%c.conf" with ClusterName=Inc */
	check_node(&c, 3, "top1", 1, 1, 4, 1, 4);
	/* inc/nodes.conf includes "more.conf": inc/more.conf */
	snprintf(inc, sizeof(inc), "%s", tm_data("slurm_conf/inc/more.conf"));
	ck_assert_str_eq(c.node[0].file, inc);
	ck_assert_int_eq(c.node[0].line, 1);
	snprintf(inc, sizeof(inc), "%s", tm_data("slurm_conf/inc/nodes.conf"));
	ck_assert_str_eq(c.node[1].file, inc);
	ck_assert_int_eq(c.node[1].line, 4);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "i2"), 1);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "top1"), 3);
	tm_slurm_conf_free(&c);
}
END_TEST

START_TEST(include_errors)
{
	/* the path tried is the one relative to the including file */
	char dir[4200], want[9000], err[TOPOMATCH_ERRLEN] = "";
	snprintf(dir, sizeof(dir), "%s", tm_data("slurm_conf"));
	snprintf(want, sizeof(want),
		 "err_include_missing.conf:2:9: Include: cannot open %s/nope.conf: No such file "
		 "or directory", dir);
	file_fails("err_include_missing.conf", TOPOMATCH_EIO, want);

	file_fails("err_include_loop.conf", TOPOMATCH_ELIMIT,
		   "err_include_loop.conf:1:9: Include 'err_include_loop.conf': nested more "
		   "than 16 deep (does a file include itself?)");
	/* an error inside an included file names that file */
	file_fails("err_include_bad.conf", TOPOMATCH_EPARSE,
		   "inc/bad.conf:2:29: ThreadsPerCore: expected a count in [1, 65535], got '-2'");

	text_fails("Include\n", TOPOMATCH_EPARSE, ":1:8: Include: missing file name");
	text_fails("Include a.conf b.conf\n", TOPOMATCH_EPARSE,
		   ":1:16: Include 'a.conf': one file name per Include");
	text_fails("Include nodes-%c.conf\n", TOPOMATCH_EPARSE,
		   ":1:9: Include 'nodes-%c.conf': %c needs a ClusterName line before it");
	text_fails("ClusterName=X\nInclude /nonexistent/%c/n.conf\n", TOPOMATCH_EIO,
		   ":2:9: Include: cannot open /nonexistent/x/n.conf: No such file or directory");
	/* a directory opens but does not read */
	text_fails("Include /\n", TOPOMATCH_EIO, "/: read error: Is a directory");
	tm_slurm_conf_t none;
	ck_assert_int_eq(tm_slurm_conf_read("/nonexistent/slurm.conf", &none, err), TOPOMATCH_EIO);
	ck_assert_str_eq(err, "/nonexistent/slurm.conf: cannot open: No such file or directory");
	ck_assert_int_eq(tm_slurm_conf_read(NULL, &none, err), TOPOMATCH_EINVAL);
}
END_TEST

START_TEST(value_errors)
{
	file_fails("err_bad_int.conf", TOPOMATCH_EPARSE,
		   "err_bad_int.conf:2:21: Sockets: expected a count in [1, 65535], got 'two'");
	text_fails("NodeName=a Sockets=0\n", TOPOMATCH_EPARSE,
		   ":1:20: Sockets=0 is invalid (slurmctld logs an error and uses 1)");
	text_fails("NodeName=a CPUs=65536\n", TOPOMATCH_EPARSE,
		   ":1:17: CPUs: expected a count in [1, 65535], got '65536'");
	text_fails("NodeName=a CoresPerSocket=08\n", TOPOMATCH_EPARSE,
		   ":1:27: CoresPerSocket: expected a count in [1, 65535], got '08'");
	text_fails("NodeName=DEFAULT Boards=2x\n", TOPOMATCH_EPARSE,
		   ":1:25: Boards: expected a count in [1, 65535], got '2x'");
	text_fails("NodeName=a SocketsPerBoard=\"\"\n", TOPOMATCH_EPARSE,
		   ":1:29: SocketsPerBoard: expected a count in [1, 65535], got ''");
	text_fails("NodeName=a Sockets=\n", TOPOMATCH_EPARSE,
		   ":1:20: missing value after 'Sockets='");
	/* long values are cut in messages */
	char longv[400];
	snprintf(longv, sizeof(longv), "NodeName=a Sockets=%0300d\n", 7);
	longv[19] = '9';
	text_fails(longv, TOPOMATCH_EPARSE, "got '9000000000");
	text_fails(longv, TOPOMATCH_EPARSE, "...'");
}
END_TEST

START_TEST(unknown_keys)
{
	file_fails("err_unknown_key.conf", TOPOMATCH_EPARSE,
		   "err_unknown_key.conf:2:13: unknown NodeName key 'Socket' "
		   "(did you mean 'Sockets'?)");
	text_fails("NodeName=a coresPERsocket=2 threadspercores=2\n", TOPOMATCH_EPARSE,
		   ":1:29: unknown NodeName key 'threadspercores' "
		   "(did you mean 'ThreadsPerCore'?)");
	char err[TOPOMATCH_ERRLEN];
	text_fails_err("NodeName=a Colour=red\n", TOPOMATCH_EPARSE,
		       ":1:12: unknown NodeName key 'Colour'", err);
	check_ends(err, "'Colour'"); /* nothing close enough to suggest */
	text_fails("NodeName=a Gress=gpu:1\n", TOPOMATCH_EPARSE, "(did you mean 'Gres'?)");
	/* every key slurmctld 22.05 accepts on a NodeName line is accepted */
	tm_slurm_conf_t c;
	text_ok("NodeName=a BcastAddr=x Boards=1 CoreSpecCount=1 CoresPerSocket=2 CPUs=2 "
		"CPUSpecList=0 CpuBind=core Feature=f Features=f Gres=gpu:1 MemSpecLimit=1 "
		"NodeAddr=a NodeHostname=a Port=7000 Procs=2 RealMemory=100 Reason=\"x y\" "
		"Sockets=1 State=FUTURE ThreadsPerCore=1 TmpDisk=1 TRESWeights=CPU=1 Weight=1\n"
		"NodeName=b SocketsPerBoard=1\n",
		&c);
	ck_assert_int_eq(c.n, 2);
	check_node(&c, 0, "a", 1, 1, 2, 1, 2);
	tm_slurm_conf_free(&c);
	/* other lines, known to Slurm or not, are not this reader's business */
	text_ok("PartitionName=p Nodes=ALL Bogus=1\nSomethingNew=1 2 3\nDownNodes=x State=DOWN\n",
		&c);
	ck_assert_int_eq(c.n, 0);
	tm_slurm_conf_free(&c);
}
END_TEST

START_TEST(hostlist_errors)
{
	file_fails("err_hostlist.conf", TOPOMATCH_EPARSE,
		   "err_hostlist.conf:1:20: NodeName=n[001-005,x]: bad character 'x'");
	text_fails("NodeName=n[1-4\n", TOPOMATCH_EPARSE,
		   ":1:11: NodeName=n[1-4: unbalanced bracket '['");
	/* columns count from the file, through escapes and quotes */
	text_fails("NodeName=\"a,,b\" Sockets=1\n", TOPOMATCH_EPARSE,
		   ":1:13: NodeName=a,,b: empty item");
	text_fails("NodeName=a\\,\\,b Sockets=1\n", TOPOMATCH_EPARSE,
		   ":1:14: NodeName=a,,b: empty item");
	char big[64];
	snprintf(big, sizeof(big), "NodeName=n[1-%lld]\n", (long long)TM_SLURM_MAX_NODES + 1);
	text_fails(big, TOPOMATCH_ELIMIT, ":1:10: NodeName=n[1-1048577]: more than 1048576 node "
					  "names in all");
	/* at the limit */
	tm_slurm_conf_t c;
	snprintf(big, sizeof(big), "NodeName=n[1-%lld]\n", (long long)TM_SLURM_MAX_NODES);
	text_ok(big, &c);
	ck_assert_int_eq(c.nnames, TM_SLURM_MAX_NODES);
	tm_slurm_conf_free(&c);
}
END_TEST

START_TEST(derived_errors)
{
	text_fails("NodeName=DEFAULT Sockets=2\nNodeName=s1 SocketsPerBoard=1\n",
		   TOPOMATCH_EPARSE,
		   ":2:10: NodeName=s1: Sockets and SocketsPerBoard are mutually exclusive "
		   "(slurmctld logs an error and uses Boards x SocketsPerBoard)");
	text_fails("NodeName=s2 Boards=4 Sockets=2\n", TOPOMATCH_EPARSE,
		   ":1:10: NodeName=s2: Sockets (2) < Boards (4) (slurmctld logs an error and "
		   "uses Boards=1)");
	text_fails("NodeName=s3 Sockets=2 CoresPerSocket=12 ThreadsPerCore=2 CPUs=40\n",
		   TOPOMATCH_EPARSE,
		   ":1:10: NodeName=s3: CPUs=40 matches none of Sockets (2), Sockets x "
		   "CoresPerSocket (24), Sockets x CoresPerSocket x ThreadsPerCore (48)");
	text_fails("NodeName=s4 Sockets=256 CoresPerSocket=256\n", TOPOMATCH_EPARSE,
		   ":1:10: NodeName=s4: Sockets x CoresPerSocket x ThreadsPerCore is 65536 CPUs, "
		   "more than Slurm's 65535");
	text_fails("NodeName=s5 Boards=256 SocketsPerBoard=256\n", TOPOMATCH_EPARSE,
		   ":1:10: NodeName=s5: Boards x SocketsPerBoard is 65536 sockets, "
		   "more than 65535");
}
END_TEST

START_TEST(refused_lines)
{
	text_fails("NodeName=all Sockets=1\n", TOPOMATCH_EPARSE,
		   ":1:10: 'all' is a reserved word disallowed for use with NodeName");
	text_fails("NodeName=DEFAULT NodeAddr=10.0.0.1\n", TOPOMATCH_EPARSE,
		   ":1:18: NodeAddr is not allowed with NodeName=DEFAULT");
	text_fails("NodeName=default nodehostname=h\n", TOPOMATCH_EPARSE,
		   ":1:18: NodeHostname is not allowed with NodeName=DEFAULT");
	text_fails("NodeName=a Sockets+=2\n", TOPOMATCH_EPARSE,
		   ":1:12: 'Sockets+=': operators have no meaning on a NodeName line");
	text_fails("NodeName=a Sockets=1 NodeName=b\n", TOPOMATCH_EPARSE,
		   ":1:22: a second NodeName on one line (one NodeName per line)");
	text_fails("NodeName=a Sockets=1 junk\n", TOPOMATCH_EPARSE,
		   ":1:26: expected '=' after 'junk'");
	text_fails("ClusterName=c\n  = oops\n", TOPOMATCH_EPARSE,
		   ":2:3: expected Key=Value, got '='");
	text_fails("NodeName n1\n", TOPOMATCH_EPARSE, ":1:10: expected '=' after 'NodeName'");
}
END_TEST

START_TEST(duplicates)
{
	/* slurmctld: fatal("Duplicated NodeHostName %s in config file") */
	tm_slurm_conf_t c;
	char err[TOPOMATCH_ERRLEN] = "", path[4200], want[9000];

	snprintf(path, sizeof(path), "%s", tm_data("slurm_conf/err_dup.conf"));
	ck_assert_int_eq(tm_slurm_conf_read(path, &c, err), TOPOMATCH_EPARSE);
	snprintf(want, sizeof(want),
		 "%s:2:10: node 'n010' is already defined at %s:1:10 (slurmctld refuses "
		 "duplicated nodes)", path, path);
	ck_assert_str_eq(err, want);
	ck_assert_ptr_null(c.node);
	ck_assert_ptr_null(c.index);
	text_fails("NodeName=x[1-3],x2\n", TOPOMATCH_EPARSE,
		   ":1:10: node 'x2' is listed twice on this NodeName line");
	/* the same name in another spelling of the range is the same node */
	text_fails("NodeName=y[08-11]\nNodeName=y09\n", TOPOMATCH_EPARSE,
		   ":2:10: node 'y09' is already defined at ");
	/* different padding makes different names */
	text_ok("NodeName=z[8-11]\nNodeName=z09\n", &c);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "z9"), 0);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "z09"), 1);
	tm_slurm_conf_free(&c);
}
END_TEST

START_TEST(find_leading_zeros)
{
	tm_slurm_conf_t c;

	file_ok("basic.conf", &c);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "n001"), 0);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "n064"), 0);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "n128"), 0);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "n1"), -1);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "n64"), -1);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "n0001"), -1);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "n000"), -1);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "n129"), -1);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "gpu03"), 1);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "gpu3"), -1);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "login1"), 2);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "login"), -1);
	ck_assert_int_eq(tm_slurm_conf_find(&c, "login10"), -1);
	ck_assert_int_eq(tm_slurm_conf_find(&c, ""), -1);
	ck_assert_int_eq(tm_slurm_conf_find(&c, NULL), -1);
	ck_assert_int_eq(tm_slurm_conf_find(NULL, "n001"), -1);
	/* a name longer than any in the file */
	char longname[600];
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert_int_eq(tm_slurm_conf_find(&c, longname), -1);
	tm_slurm_conf_free(&c);

	/* names of 255 characters, the longest a host list takes */
	char text[1200], name[600];
	memset(name, 'q', 251);
	snprintf(name + 251, sizeof(name) - 251, "[0007-0009]");
	snprintf(text, sizeof(text), "NodeName=a1\nNodeName=%s\n", name);
	text_ok(text, &c);
	snprintf(name + 251, sizeof(name) - 251, "0008");
	ck_assert_int_eq(tm_slurm_conf_find(&c, name), 1);
	snprintf(name + 251, sizeof(name) - 251, "008");
	ck_assert_int_eq(tm_slurm_conf_find(&c, name), -1);
	tm_slurm_conf_free(&c);
	/* one more is refused where the name starts, not as a count limit */
	memset(name, 'q', 252);
	snprintf(name + 252, sizeof(name) - 252, "[0007-0009]");
	snprintf(text, sizeof(text), "NodeName=a1\nNodeName=%s\n", name);
	text_fails(text, TOPOMATCH_ELIMIT, ":2:10: NodeName=");
	text_fails(text, TOPOMATCH_ELIMIT, ": a name longer than 255 characters");
}
END_TEST

START_TEST(limits)
{
	/* a NUL byte is a binary file, not a slurm.conf */
	tm_slurm_conf_t c;
	char err[TOPOMATCH_ERRLEN] = "";
	const char nul[] = "ClusterName=c\nNodeName=a\0b\n";
	ck_assert_int_eq(read_text(nul, sizeof(nul) - 1, &c, err), TOPOMATCH_EPARSE);
	ck_assert_contains(err, ":2:11: NUL byte (not a text file?)");
	ck_assert_ptr_null(c.files);

	/* one byte over the bound: refused before parsing */
	size_t n = (size_t)TM_SLURM_MAX_FILE_BYTES + 1;
	char *big = malloc(n);
	ck_assert_ptr_nonnull(big);
	memset(big, '#', n);
	for (size_t i = 79; i < n; i += 80)
		big[i] = '\n';
	ck_assert_int_eq(read_text(big, n, &c, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, ":209716: larger than the limit of 16777216 bytes");
	/* at the bound it reads */
	ck_assert_int_eq(read_text(big, n - 1, &c, err), TOPOMATCH_OK);
	ck_assert_int_eq(c.n, 0);
	tm_slurm_conf_free(&c);
	free(big);
}
END_TEST

/* dir/name with len bytes of text; the path into path (4200 bytes). */
static const char *write_in(const char *dir, const char *name, const char *text, size_t len,
			    char *path)
{
	snprintf(path, 4200, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	fclose(f);
	return path;
}

/* Include limits, at and just past: 1024 files read, 64 MiB in all. */
START_TEST(include_limits)
{
	char dir[] = "/tmp/tm_slurm_inc_XXXXXX", path[4200], err[TOPOMATCH_ERRLEN] = "";
	static const char inc[] = "Include empty.conf\n", big_inc[] = "Include big.conf\n";
	const size_t il = sizeof(inc) - 1, bl = sizeof(big_inc) - 1;
	tm_slurm_conf_t c;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_in(dir, "empty.conf", "", 0, path);
	/* the main file and 1023 Includes are 1024 files; one more is refused */
	char *text = malloc(1024 * il);
	for (int i = 0; i < 1024; i++)
		memcpy(text + i * il, inc, il);
	ck_assert_int_eq(tm_slurm_conf_read(write_in(dir, "files.conf", text, 1023 * il, path),
					    &c, err), TOPOMATCH_OK);
	ck_assert_int_eq(c.nfiles, 1024);
	tm_slurm_conf_free(&c);
	ck_assert_int_eq(tm_slurm_conf_read(write_in(dir, "files.conf", text, 1024 * il, path),
					    &c, err), TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "files.conf:1024:9: Include: more than 1024 files read in all");
	free(text);

	/* the main file (4 Includes) and 4 files of 16 MiB, the last one
	 * 4 x bl bytes shorter: 64 MiB in all, exactly; one byte more is past */
	size_t n = (size_t)TM_SLURM_MAX_FILE_BYTES;
	char *big = malloc(n);
	memset(big, '#', n);
	for (size_t i = 79; i < n; i += 80)
		big[i] = '\n';
	write_in(dir, "big.conf", big, n, path);
	char main_text[4 * sizeof(big_inc) + 32];
	snprintf(main_text, sizeof(main_text), "%s%s%sInclude last.conf\n", big_inc, big_inc,
		 big_inc);
	ck_assert_uint_eq(strlen(main_text), 4 * bl + 1); /* "last" is a byte longer than "big" */
	write_in(dir, "last.conf", big, n - 4 * bl - 1, path);
	write_in(dir, "bytes.conf", main_text, strlen(main_text), path);
	ck_assert_msg(tm_slurm_conf_read(path, &c, err) == TOPOMATCH_OK, "%s", err);
	tm_slurm_conf_free(&c);
	write_in(dir, "last.conf", big, n - 4 * bl, path);
	ck_assert_int_eq(tm_slurm_conf_read(write_in(dir, "bytes.conf", main_text,
						     strlen(main_text), path), &c, err),
			 TOPOMATCH_ELIMIT);
	ck_assert_contains(err, "bytes.conf:4:9: Include: ");
	ck_assert_contains(err, "/last.conf: the files read exceed the limit of 67108864 bytes "
				"in all");
	free(big);
	static const char *const names[] = { "empty.conf", "files.conf", "big.conf", "last.conf",
					      "bytes.conf" };
	for (int i = 0; i < 5; i++)
		unlink(write_in(dir, names[i], "", 0, path));
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(many_nodes)
{
	/* 100,000 one-node lines, as generated configurations have them */
	const int64_t n = 100000;
	size_t cap = (size_t)n * 64, len = 0;
	char *text = malloc(cap), name[32];
	tm_slurm_conf_t c;
	char err[TOPOMATCH_ERRLEN] = "";

	ck_assert_ptr_nonnull(text);
	len += (size_t)snprintf(text, cap, "NodeName=DEFAULT Sockets=2 CoresPerSocket=4\n");
	for (int64_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "NodeName=node%06lld\n",
					(long long)i);
	double t0 = tm_cpu_now();
	ck_assert_int_eq(read_text(text, len, &c, err), TOPOMATCH_OK);
	ck_assert_int_eq(c.n, n);
	ck_assert_int_eq(c.nnames, n);
	/* every lookup hits its own line, and misses cost as little */
	for (int64_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "node%06lld", (long long)i);
		ck_assert_int_eq(tm_slurm_conf_find(&c, name), i);
		snprintf(name, sizeof(name), "node%lld", (long long)i + n);
		ck_assert_int_eq(tm_slurm_conf_find(&c, name), -1);
	}
	check_node(&c, n - 1, "node099999", 1, 2, 4, 1, 8);
	ck_assert_int_eq(c.node[n - 1].line, n + 1);
	/* quadratic lookups would take minutes; this is well under a second natively */
	tm_assert_within(t0, 60.0, "100k nodes");
	tm_slurm_conf_free(&c);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topomatch-slurm-conf");
	TCase *tc = tcase_create("slurm_conf");

	tcase_add_test(tc, basic_file);
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, cpus_only);
	tcase_add_test(tc, boards);
	tcase_add_test(tc, mixed_case);
	tcase_add_test(tc, comments_continuations);
	tcase_add_test(tc, include_relative);
	tcase_add_test(tc, include_errors);
	tcase_add_test(tc, value_errors);
	tcase_add_test(tc, unknown_keys);
	tcase_add_test(tc, hostlist_errors);
	tcase_add_test(tc, derived_errors);
	tcase_add_test(tc, refused_lines);
	tcase_add_test(tc, duplicates);
	tcase_add_test(tc, find_leading_zeros);
	tcase_add_test(tc, limits);
	tcase_add_test(tc, include_limits);
	tcase_add_test(tc, many_nodes);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return tm_run_suite(s);
}
