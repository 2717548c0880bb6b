/* local.c: worker processes on this machine. The master forks `jobs` workers, each with a
 * command pipe (point ids in) and a result pipe (framed result messages out); only the master
 * touches the database. A worker whose master is gone sees end of file (or SIGPIPE) and ends. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep/sweep.h"

typedef struct {
    pid_t pid;
    int cmd_fd;    /* master writes point ids */
    int res_fd;    /* master reads results */
    int stopped;   /* told to stop, or gone */
} local_worker;

typedef struct {
    local_worker *w;
    int n;
} local_ctx;

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t k = write(fd, p, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

/* 1 read, 0 end of file before anything, -1 error or a short read. */
static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    size_t got = 0;
    while (got < len) {
        ssize_t k = read(fd, p + got, len - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            return got == 0 ? 0 : -1;
        got += (size_t)k;
    }
    return 1;
}

/* ------------------------------------------------------------ worker side */

static int send_frame(int fd, const char *msg, uint32_t len)
{
    return write_all(fd, &len, sizeof len) || (len && write_all(fd, msg, len)) ? -1 : 0;
}

static int worker_main(const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *pts, size_t n, const char *model_dir,
                       int cmd_fd, int res_fd)
{
    gpuest_sweep_evaluator_t *ev = NULL;
    gpuest_error_t err;
    gpuest_error_clear(&err);
    if (gpuest_sweep_evaluator_create(spec, model_dir, &ev, &err) != GPUEST_OK)
        return 1;
    int rc = send_frame(res_fd, NULL, 0); /* ready */
    static gpuest_sweep_result_t r;
    while (rc == 0) {
        int64_t id;
        if (read_all(cmd_fd, &id, sizeof id) != 1 || id < 0 || (uint64_t)id >= n)
            break;
        gpuest_sweep_evaluate(ev, &pts[id], &r);
        size_t len;
        char *msg = gpuest_sweep_result_encode(&r, &len);
        rc = msg ? send_frame(res_fd, msg, (uint32_t)len) : -1;
        free(msg);
    }
    gpuest_sweep_evaluator_destroy(ev);
    return rc == 0 ? 0 : 1;
}

/* ------------------------------------------------------------ master side */

static gpuest_err local_recv(void *vctx, int *worker, char **msg, size_t *len, gpuest_error_t *err)
{
    local_ctx *c = vctx;
    struct pollfd *fds = calloc((size_t)c->n, sizeof *fds);
    int *map = calloc((size_t)c->n, sizeof *map);
    if (!fds || !map) {
        free(fds);
        free(map);
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    }
    *msg = NULL;
    *len = 0;
    *worker = -1;
    gpuest_err rc = GPUEST_OK;
    for (;;) {
        int k = 0;
        for (int i = 0; i < c->n; i++)
            if (!c->w[i].stopped) {
                fds[k].fd = c->w[i].res_fd;
                fds[k].events = POLLIN;
                fds[k].revents = 0;
                map[k++] = i;
            }
        if (k == 0) {
            rc = gpuest_fail(err, GPUEST_EIO, "no worker left");
            break;
        }
        int p = poll(fds, (nfds_t)k, -1);
        if (p < 0 && errno == EINTR)
            continue;
        if (p < 0) {
            rc = gpuest_fail(err, GPUEST_EIO, "poll: %s", strerror(errno));
            break;
        }
        int j = 0;
        while (j < k && !fds[j].revents)
            j++;
        local_worker *w = &c->w[map[j]];
        *worker = map[j];
        uint32_t n;
        int got = read_all(w->res_fd, &n, sizeof n);
        char *buf = got == 1 && n ? malloc(n) : NULL;
        if (got == 1 && n && (!buf || read_all(w->res_fd, buf, n) != 1))
            got = -1;
        if (got != 1) {
            free(buf);
            int status = 0;
            w->stopped = 1;
            close(w->res_fd);
            if (waitpid(w->pid, &status, 0) == w->pid && WIFSIGNALED(status))
                rc = gpuest_fail(err, GPUEST_EIO, "worker process %d killed by signal %d", (int)w->pid,
                                 WTERMSIG(status));
            else
                rc = gpuest_fail(err, GPUEST_EIO, "worker process %d ended unexpectedly", (int)w->pid);
            w->pid = -1;
            break;
        }
        *msg = buf;
        *len = n;
        break;
    }
    free(fds);
    free(map);
    return rc;
}

static gpuest_err local_send(void *vctx, int worker, long point, gpuest_error_t *err)
{
    local_ctx *c = vctx;
    local_worker *w = &c->w[worker];
    int64_t id = point;
    if (point < 0) { /* stop: closing the pipe ends its loop */
        close(w->cmd_fd);
        w->cmd_fd = -1;
        w->stopped = 1;
        return GPUEST_OK;
    }
    if (write_all(w->cmd_fd, &id, sizeof id) != 0)
        return gpuest_fail(err, GPUEST_EIO, "cannot hand point %ld to worker process %d", point, (int)w->pid);
    return GPUEST_OK;
}

static void reap(local_ctx *c)
{
    for (int i = 0; i < c->n; i++) {
        if (c->w[i].cmd_fd >= 0)
            close(c->w[i].cmd_fd);
        if (c->w[i].pid > 0) {
            if (!c->w[i].stopped)
                close(c->w[i].res_fd);
            else
                close(c->w[i].res_fd);
            waitpid(c->w[i].pid, NULL, 0);
        }
    }
    free(c->w);
}

gpuest_err gpuest_sweep_run_local(const gpuest_sweep_spec_t *spec, const gpuest_sweep_point_t *pts, size_t n,
                                  gpuest_sweep_db_t *db, const unsigned char *done, int jobs, const char *model_dir,
                                  gpuest_sweep_done_fn on_done, void *done_ctx, size_t *failed, gpuest_error_t *err)
{
    if (jobs < 1)
        jobs = 1;
    local_ctx c = {calloc((size_t)jobs, sizeof(local_worker)), 0};
    if (!c.w)
        return gpuest_fail(err, GPUEST_ENOMEM, "out of memory");
    /* A worker that is gone must not end the master through SIGPIPE: its write fails instead. */
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    fflush(NULL); /* nothing buffered is written twice by a child */
    gpuest_err rc = GPUEST_OK;
    for (int i = 0; i < jobs && rc == GPUEST_OK; i++) {
        int cmd[2], res[2];
        if (pipe(cmd) != 0)
            rc = gpuest_fail(err, GPUEST_EIO, "pipe: %s", strerror(errno));
        else if (pipe(res) != 0) {
            close(cmd[0]);
            close(cmd[1]);
            rc = gpuest_fail(err, GPUEST_EIO, "pipe: %s", strerror(errno));
        }
        if (rc != GPUEST_OK)
            break;
        pid_t pid = fork();
        if (pid == 0) {
            signal(SIGPIPE, SIG_DFL); /* the master gone: end on the next write */
            for (int j = 0; j < c.n; j++) { /* only this worker's own ends stay open */
                close(c.w[j].cmd_fd);
                close(c.w[j].res_fd);
            }
            close(cmd[1]);
            close(res[0]);
            _exit(worker_main(spec, pts, n, model_dir, cmd[0], res[1]));
        }
        close(cmd[0]);
        close(res[1]);
        if (pid < 0) {
            close(cmd[1]);
            close(res[0]);
            rc = gpuest_fail(err, GPUEST_EIO, "fork: %s", strerror(errno));
            break;
        }
        c.w[c.n++] = (local_worker){pid, cmd[1], res[0], 0};
    }
    if (rc == GPUEST_OK) {
        gpuest_sweep_transport_t t = {&c, c.n, local_recv, local_send};
        rc = gpuest_sweep_master(&t, db, spec, pts, n, done, on_done, done_ctx, failed, err);
    }
    reap(&c);
    signal(SIGPIPE, old_pipe);
    return rc;
}
