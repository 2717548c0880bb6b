/* gnuplot.c: hands a figure to gnuplot (pngcairo or svg terminal) and checks the file it draws. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_int.h"

int gpuest_gnuplot_available(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char dir[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(dir, sizeof dir, "%.*s/gnuplot", (int)n, path);
        if (n > 0 && access(dir, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

static const char *extension(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

/* A path inside gnuplot's single quotes (which take no escapes). */
static gpuest_err gp_path(rbuf_t *b, const char *path, gpuest_error_t *err)
{
    if (strchr(path, '\'') || strchr(path, '\n'))
        return gpuest_fail(err, GPUEST_EINVAL, "%s: a path with a quote or newline cannot be handed to gnuplot", path);
    rbuf_printf(b, "'%s'", path);
    return GPUEST_OK;
}

gpuest_err rep_gnuplot_script(const gpuest_figure_t *fig, const char *data_path, const char *out_path, rbuf_t *out,
                              gpuest_error_t *err)
{
    const char *ext = extension(out_path);
    /* choice: 900 x 560 points, a size that stays legible inline in the report and in a paper column */
    if (strcmp(ext, "png") == 0)
        rbuf_puts(out, "set terminal pngcairo size 900,560 font \"sans,10\" noenhanced\n");
    else if (strcmp(ext, "svg") == 0)
        rbuf_puts(out, "set terminal svg size 900,560 font \"sans,10\" noenhanced\n");
    else
        return gpuest_fail(err, GPUEST_EINVAL, "%s: the figure's file must end in .png or .svg", out_path);
    rbuf_puts(out, "set output ");
    GPUEST_TRY(gp_path(out, out_path, err));
    rbuf_puts(out, "\nset datafile separator \"\\t\"\nset datafile missing \"?\"\n");
    rbuf_t quoted = {0};
    gpuest_err rc = gp_path(&quoted, data_path, err);
    for (const char *s = fig->script; rc == GPUEST_OK && *s;) { /* DATAFILE -> the quoted data path */
        const char *at = strstr(s, "DATAFILE");
        if (!at) {
            rbuf_puts(out, s);
            break;
        }
        rbuf_printf(out, "%.*s%s", (int)(at - s), s, quoted.s);
        s = at + 8;
    }
    rbuf_free(&quoted);
    if (rc == GPUEST_OK)
        rbuf_puts(out, "unset output\n");
    return rc;
}

static gpuest_err write_whole(const char *path, const char *text, gpuest_error_t *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return gpuest_fail(err, GPUEST_EIO, "%s: cannot write: %s", path, strerror(errno));
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    ok = fclose(f) == 0 && ok;
    return ok ? GPUEST_OK : gpuest_fail(err, GPUEST_EIO, "%s: write failed", path);
}

/* Runs gnuplot on script with its output to log; returns its exit status (-1: not run). */
static int run_gnuplot(const char *script, const char *log)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The drawn file is what its extension says: the PNG signature, or an SVG root. */
static gpuest_err check_drawn(const char *path, const char *ext, gpuest_error_t *err)
{
    unsigned char *data = NULL;
    size_t size = 0;
    GPUEST_TRY(gpuest_read_file(path, &data, &size, err));
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    int ok;
    if (strcmp(ext, "png") == 0) {
        ok = size > 8 && memcmp(data, png_sig, 8) == 0;
    } else {
        const char *s = (const char *)data;
        size_t n = size;
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
            n--;
        ok = strstr(s, "<svg") != NULL && n >= 6 && memcmp(s + n - 6, "</svg>", 6) == 0;
    }
    free(data);
    return ok ? GPUEST_OK
              : gpuest_fail(err, GPUEST_ECORRUPT, "gnuplot wrote %s, but it is not a complete %s file", path, ext);
}

/* The first line of gnuplot's complaint, for the error message. */
static void log_excerpt(const char *log, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strstr(line, "rror") || strstr(line, "arning")) {
            snprintf(buf, cap, "%s", line);
            break;
        }
        if (!buf[0] && line[0])
            snprintf(buf, cap, "%s", line);
    }
    fclose(f);
}

static gpuest_err render_in(const gpuest_figure_t *fig, const char *out_path, const char *dir, gpuest_error_t *err)
{
    char data_path[4096], script_path[4096], log_path[4096], tmp_out[4096];
    snprintf(data_path, sizeof data_path, "%s/figure.dat", dir);
    snprintf(script_path, sizeof script_path, "%s/figure.gp", dir);
    snprintf(log_path, sizeof log_path, "%s/gnuplot.log", dir);
    snprintf(tmp_out, sizeof tmp_out, "%s.tmp.%d.%s", out_path, (int)getpid(), extension(out_path));
    rbuf_t script = {0};
    gpuest_err rc = rep_gnuplot_script(fig, data_path, tmp_out, &script, err);
    if (rc == GPUEST_OK && script.oom)
        rc = gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    if (rc == GPUEST_OK)
        rc = write_whole(data_path, fig->data, err);
    if (rc == GPUEST_OK)
        rc = write_whole(script_path, script.s, err);
    rbuf_free(&script);
    if (rc != GPUEST_OK)
        return rc;
    int status = run_gnuplot(script_path, log_path);
    if (status != 0) {
        char why[512];
        log_excerpt(log_path, why, sizeof why);
        unlink(tmp_out);
        return gpuest_fail(err, GPUEST_EIO, "gnuplot failed (exit %d) on %s: %s", status, script_path,
                           why[0] ? why : "no message");
    }
    rc = check_drawn(tmp_out, extension(out_path), err);
    if (rc == GPUEST_OK && rename(tmp_out, out_path) != 0)
        rc = gpuest_fail(err, GPUEST_EIO, "%s: cannot write: %s", out_path, strerror(errno));
    if (rc != GPUEST_OK)
        unlink(tmp_out);
    return rc;
}

gpuest_err gpuest_figure_render(const gpuest_figure_t *fig, const char *out_path, const char *work_dir,
                                gpuest_error_t *err)
{
    const char *ext = extension(out_path);
    if (strcmp(ext, "png") != 0 && strcmp(ext, "svg") != 0)
        return gpuest_fail(err, GPUEST_EINVAL, "%s: the figure's file must end in .png or .svg", out_path);
    if (!gpuest_gnuplot_available())
        return gpuest_fail(
            err, GPUEST_EUNSUPPORTED,
            "gnuplot is not installed (Debian: apt-get install gnuplot-nox, or scripts/install-deps.sh)");
    if (work_dir) {
        if (mkdir(work_dir, 0755) != 0 && errno != EEXIST)
            return gpuest_fail(err, GPUEST_EIO, "%s: cannot create: %s", work_dir, strerror(errno));
        return render_in(fig, out_path, work_dir, err);
    }
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/gpuest-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return gpuest_fail(err, GPUEST_EIO, "cannot create a temporary folder in %s: %s", tmp && *tmp ? tmp : "/tmp",
                           strerror(errno));
    gpuest_err rc = render_in(fig, out_path, dir, err);
    static const char *const names[] = {"figure.dat", "figure.gp", "gnuplot.log"};
    char path[4200];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    return rc;
}
