/* fixture_db.h: a small results database written with plain SQL, whose figures are worked by hand in the tests. */
#ifndef GPUEST_TEST_FIXTURE_DB_H
#define GPUEST_TEST_FIXTURE_DB_H

/* Creates (replacing) the database at path; fails the test on any SQLite error. */
void fixture_db_create(const char *path);
/* Creates a database with the schema and no point. */
void fixture_db_create_empty(const char *path);

#endif
