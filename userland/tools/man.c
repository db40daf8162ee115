// SPDX-License-Identifier: GPL-2.0+
/*
 * man: show the project's manual pages inside the UML (busybox has no
 * man).  The pages are formatted on the host when the initramfs is built
 * (scripts/build.py userland) into /usr/share/man/catN/NAME.N.
 *
 *   man [SECTION] NAME
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CATDIR	"/usr/share/man/cat"

static int show(const char *path)
{
	char buf[4096];
	size_t n;
	FILE *f;

	/* On a terminal, page it. */
	if (isatty(1) && !access("/bin/more", X_OK)) {
		execl("/bin/more", "more", path, (char *)NULL);
		perror("man: /bin/more");
	}
	f = fopen(path, "r");
	if (!f)
		return 1;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	const char *sections = "12345678", *name;
	char path[256], sec[2] = "";
	const char *s;

	if (argc == 3 && strlen(argv[1]) == 1 && strchr(sections, argv[1][0])) {
		sec[0] = argv[1][0];
		sections = sec;
		name = argv[2];
	} else if (argc == 2 && argv[1][0] != '-') {
		name = argv[1];
	} else {
		fprintf(stderr, "usage: man [SECTION] NAME\n"
			"pages: ls " CATDIR "*\n");
		return 2;
	}
	if (strchr(name, '/')) {
		fprintf(stderr, "man: bad name '%s'\n", name);
		return 2;
	}
	for (s = sections; *s; s++) {
		snprintf(path, sizeof(path), CATDIR "%c/%s.%c", *s, name, *s);
		if (!access(path, R_OK))
			return show(path);
	}
	fprintf(stderr, "No manual entry for %s%s%s\n", name,
		sec[0] ? " in section " : "", sec);
	return 16;
}
