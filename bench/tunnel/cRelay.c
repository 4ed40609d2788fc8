/*
 * The bench's native floor reference: a plain TCP relay in C (one epoll loop per connection, as
 * OpenSSH's client relays a forward, minus the crypto). Listens on 127.0.0.1 only, prints its
 * port, and relays each connection to 127.0.0.1:argv[1].
 * Built by bench/tunnel/procs.ts with the system's cc; not part of the app.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

static void nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static int relay_once(int from, int to) {
  char buf[65536];
  ssize_t n = read(from, buf, sizeof buf);
  if (n <= 0) return -1;
  for (ssize_t off = 0; off < n;) {
    ssize_t w = write(to, buf + off, (size_t)(n - off));
    if (w <= 0) return -1;
    off += w;
  }
  return 0;
}

static void serve(int c, int target_port) {
  struct sockaddr_in t = {0};
  t.sin_family = AF_INET;
  t.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  t.sin_port = htons((unsigned short)target_port);
  int u = socket(AF_INET, SOCK_STREAM, 0);
  if (u < 0) return;
  if (connect(u, (struct sockaddr *)&t, sizeof t) < 0) {
    close(u);
    return;
  }
  nodelay(c);
  nodelay(u);
  int ep = epoll_create1(0);
  struct epoll_event e = {.events = EPOLLIN};
  e.data.fd = c;
  epoll_ctl(ep, EPOLL_CTL_ADD, c, &e);
  e.data.fd = u;
  epoll_ctl(ep, EPOLL_CTL_ADD, u, &e);
  for (;;) {
    struct epoll_event ev[2];
    int n = epoll_wait(ep, ev, 2, -1);
    for (int i = 0; i < n; i++) {
      int fd = ev[i].data.fd;
      if (relay_once(fd, fd == c ? u : c) < 0) {
        close(ep);
        close(u);
        return;
      }
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: cRelay TARGET_PORT\n");
    return 2;
  }
  int target_port = atoi(argv[1]);
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 16) < 0 || getsockname(ls, (struct sockaddr *)&a, &len) < 0) {
    perror("cRelay");
    return 1;
  }
  printf("%d\n", ntohs(a.sin_port));
  fflush(stdout);
  for (;;) {
    int c = accept(ls, NULL, NULL);
    if (c < 0) continue;
    /* One connection at a time, in this long-lived process, like the tunnels it is compared with. */
    serve(c, target_port);
    close(c);
  }
}
