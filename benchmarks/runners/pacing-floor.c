// What a precise open loop costs this machine at the least (issue 12): one thread, one keep-alive
// connection, each request written at its slot (clock_nanosleep to an absolute time, no spinning)
// and its response read before the next slot. Two wake-ups per request and nothing else, the floor
// under any generator that sends on time, salvo included; wrk2's sleeps and epoll cost more.
//
//   gcc -O2 -o /tmp/pacing-floor runners/pacing-floor.c
//   taskset -c 0 /tmp/pacing-floor <port> <rate> <seconds>     # a server on 127.0.0.1:<port>, core 1
//
// Prints the process CPU over the run (100 = one core), CPU per request, and the send lag (the write
// minus the slot's time) mean, p99 and max.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double seconds_of(struct timespec t) { return (double)t.tv_sec + (double)t.tv_nsec / 1e9; }
static double cpu_seconds(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}
static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s <port> <rate> <seconds>\n", argv[0]);
    return 2;
  }
  int port = atoi(argv[1]);
  double rate = atof(argv[2]);
  int count = (int)(rate * atof(argv[3]));
  if (count <= 0) return 2;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in address = {0};
  address.sin_family = AF_INET;
  address.sin_port = htons((unsigned short)port);
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
    perror("connect");
    return 1;
  }
  int on = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  static const char request[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  char response[65536];
  double *lags = malloc(sizeof(double) * (size_t)count);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  double origin = seconds_of(now) + 0.01;
  double cpu_before = cpu_seconds();
  for (int k = 0; k < count; k++) {
    double due = origin + k / rate;
    struct timespec at = {(time_t)due, (long)((due - (double)(time_t)due) * 1e9)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0) {
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    lags[k] = (seconds_of(now) - due) * 1e3;
    if (write(fd, request, sizeof request - 1) < 0 || read(fd, response, sizeof response) <= 0) {
      perror("request");
      return 1;
    }
  }
  double cpu = cpu_seconds() - cpu_before;
  double sum = 0;
  for (int k = 0; k < count; k++) sum += lags[k];
  qsort(lags, (size_t)count, sizeof(double), by_value);
  printf("rate %.0f/s: CPU %.2f%% of a core, %.1f us per request; send lag mean %.3f, p99 %.3f, max %.3f ms\n", rate,
         cpu / (count / rate) * 100, cpu / count * 1e6, sum / count, lags[(int)(count * 0.99)], lags[count - 1]);
  return 0;
}
