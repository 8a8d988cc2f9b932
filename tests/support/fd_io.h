/* Whole-buffer reads and writes over a pipe or socket, for tests that talk to a child process. */
#ifndef HIPKFD_TESTS_FD_IO_H
#define HIPKFD_TESTS_FD_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

/* True once all [in] n bytes arrived; false at end of file or on an error. */
static inline bool read_full(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* True once all [in] n bytes were written. */
static inline bool write_full(int fd, const void *buf, size_t n)
{
	for (size_t put = 0; put < n;) {
		ssize_t w = write(fd, (const char *)buf + put, n - put);
		if (w <= 0)
			return false;
		put += (size_t)w;
	}
	return true;
}

#endif
