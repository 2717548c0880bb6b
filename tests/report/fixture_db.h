/* fixture_db.h: a small results database written with plain SQL, whose figures are worked by hand in the tests. */
#ifndef GPUEST_TEST_FIXTURE_DB_H
#define GPUEST_TEST_FIXTURE_DB_H

#include <stddef.h>

/* Creates (replacing) the database at path; fails the test on any SQLite error. */
void fixture_db_create(const char *path);
/* Creates a database with the schema and no point. */
void fixture_db_create_empty(const char *path);
/* Reads the first n bytes of the file at path into head (the test fails when it has fewer);
 * returns the file's size in bytes (the report tests check drawn PNG images with it). */
long fixture_file_head(const char *path, unsigned char *head, size_t n);

#endif
