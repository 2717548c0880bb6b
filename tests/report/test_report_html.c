/* test_report_html.c: 'gpuest report' opened in headless Chromium: figures and table rows are on the page. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture_db.h"
#include "run_program.h"

static char out[1 << 16];
static char dom[1 << 22];

static size_t count(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *s = strstr(text, what); s; s = strstr(s + 1, what))
        n++;
    return n;
}

static const char *chromium(void)
{
    static const char *const names[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome",
                                        NULL};
    for (int i = 0; names[i]; i++)
        if (access(names[i], X_OK) == 0)
            return names[i];
    return NULL;
}

/* Runs Chromium headless on url with extra flags; its stdout (the DOM) goes to dom. */
static void run_chromium(const char *browser, const char *profile, const char *flags, const char *url)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "timeout 60 %s --headless --no-sandbox --disable-gpu --user-data-dir=%s %s '%s' 2>/dev/null", browser,
             profile, flags, url);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(dom, 1, sizeof dom - 1, p);
    dom[n] = '\0';
    int rc = pclose(p);
    if (rc != 0)
        fail_msg("chromium exited with %d", rc);
}

static void test_report_in_chromium(void **state)
{
    (void)state;
    char base[256], db[300], dir[300], args[1200], url[400], profile[300], shot[400];
    snprintf(base, sizeof base, "%s/report_html_%d", GPUEST_BINARY_DIR, (int)getpid());
    snprintf(db, sizeof db, "%s.sqlite", base);
    snprintf(dir, sizeof dir, "%s.d", base);
    snprintf(profile, sizeof profile, "%s.profile", base);
    fixture_db_create(db);
    snprintf(args, sizeof args, "report %s --out %s", db, dir);
    if (run_gpuest(args, out, sizeof out) != 0)
        fail_msg("%s", out);
    assert_non_null(strstr(out, "14 points"));
    const char *browser = chromium();
    if (!browser) {
        print_message("SKIP: Chromium is not installed (scripts/install-deps.sh --test installs it): the page "
                      "was written but not opened\n");
        skip();
    }
    if (access("/usr/bin/gnuplot", X_OK) != 0) {
        print_message("SKIP: gnuplot is not installed: the page has no figures to check\n");
        skip();
    }
    snprintf(url, sizeof url, "file://%s/index.html", dir);
    run_chromium(browser, profile, "--dump-dom", url);
    /* ipc-bars, latency-injection, estimate-vs-simulate, stat-vs-key l1.size_bytes and noc.vcs */
    assert_int_equal(count(dom, "<figure class=\"figure\""), 5);
    assert_true(count(dom, "<svg") >= 5);
    assert_non_null(strstr(dom, "data-figure=\"latency-injection\""));
    assert_int_equal(count(dom, "<tr class=\"point\""), 14);
    assert_int_equal(count(dom, "<details class=\"config\""), 14);
    assert_non_null(strstr(dom, "gpuest simulate --config point-3.ini --workload bfs --scale tiny --seed 1"));
    assert_non_null(strstr(dom, "gpuest noc --config point-14.ini --traffic uniform --rate 0.3 --seed 1"));
    /* the configuration loads with --config: [preset] comes before every other section */
    assert_non_null(strstr(dom, "; point-3.ini\n[preset]\nname = mesh56\n\n[core]\nnum_sms = 56\n\n[l1]\n"
                                "size_bytes = 32768\n\n[noc]\nvcs = 4\n\n[technique]\ncompression = none\n</pre>"));
    /* the inline script sorts: #sort=ipc puts the lowest IPC (95, point 9) first */
    snprintf(url, sizeof url, "file://%s/index.html#sort=ipc", dir);
    run_chromium(browser, profile, "--dump-dom", url);
    const char *first = strstr(dom, "<tr class=\"point\"");
    assert_non_null(first);
    assert_true(strncmp(first, "<tr class=\"point\" data-id=\"9\"", 29) == 0);
    /* a screenshot renders */
    snprintf(shot, sizeof shot, "--screenshot=%s/shot.png --window-size=1200,900", dir);
    snprintf(url, sizeof url, "file://%s/index.html", dir);
    run_chromium(browser, profile, shot, url);
    snprintf(shot, sizeof shot, "%s/shot.png", dir);
    unsigned char sig[4];
    long size = fixture_file_head(shot, sig, sizeof sig);
    assert_memory_equal(sig, "\x89PNG", 4);
    assert_true(size > 20000); /* text and figures drawn: a blank 1200 x 900 page is about 6 KB */
    snprintf(args, sizeof args, "rm -rf %s %s %s", db, dir, profile);
    assert_int_equal(system(args), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_report_in_chromium)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
