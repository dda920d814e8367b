/* A whole-process peer for tests/bench/bench_batch.py: read a file of one-line 9x9 puzzles, solve
 * each once with the solver it is linked with, check the grid (every row, column and box holds
 * 1..9, every clue kept) and print it: the work `race solve FILE` does. Exit 1 when an answer
 * fails the check or a puzzle has none.
 *
 * Built by the bench with one of -DPEER_TDOKU (tdoku's TdokuSolverDpllTriadSimd) or -DPEER_JCZ
 * (JCZSolve's JCZSolver), from the sources a tdoku clone holds. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PEER_TDOKU
size_t TdokuSolverDpllTriadSimd(const char *input, size_t limit, uint32_t configuration,
                                char *solution, size_t *num_guesses);
static int peer_solve(const char *puzzle, char *solution) {
    size_t guesses = 0;
    return (int)TdokuSolverDpllTriadSimd(puzzle, 1, 0, solution, &guesses);
}
#elif defined(PEER_JCZ)
size_t JCZSolve_guesses;           /* tdoku's patch of JCZSolve.c declares it extern */
int JCZSolver(const char *puzzle, char *solution, int limit);
static int peer_solve(const char *puzzle, char *solution) {
    return JCZSolver(puzzle, solution, 1);
}
#else
#error "build with -DPEER_TDOKU or -DPEER_JCZ"
#endif

static int checked(const char *puzzle, const char *grid) {
    for (int u = 0; u < 9; u++) {
        int rows = 0, cols = 0, boxes = 0;
        for (int k = 0; k < 9; k++) {
            rows |= 1 << (grid[9 * u + k] - '0');
            cols |= 1 << (grid[9 * k + u] - '0');
            boxes |= 1 << (grid[9 * (3 * (u / 3) + k / 3) + 3 * (u % 3) + k % 3] - '0');
        }
        if (rows != 0x3FE || cols != 0x3FE || boxes != 0x3FE)
            return 0;
    }
    for (int i = 0; i < 81; i++)
        if (puzzle[i] != '.' && puzzle[i] != grid[i])
            return 0;
    return 1;
}

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int read_puzzle(FILE *in, char *puzzle) {
    char line[256];
    while (fgets(line, sizeof line, in)) {
        if (strlen(line) < 81)
            continue;
        for (int i = 0; i < 81; i++)
            puzzle[i] = line[i] == '0' ? '.' : line[i];
        puzzle[81] = 0;
        return 1;
    }
    return 0;
}

static int kernel_only(FILE *in) {
    size_t count = 0, room = 1024;
    char *all = malloc(82 * room), solution[82];
    while (all && read_puzzle(in, all + 82 * count))
        if (++count == room)
            all = realloc(all, 82 * (room *= 2));
    if (!all || !count)
        return 2;
    double best = 1e30;
    int bad = 0;
    for (int pass = 0; pass < 3; pass++) {
        double t0 = cpu_seconds();
        for (size_t p = 0; p < count; p++)
            bad |= peer_solve(all + 82 * p, solution) < 1;
        double t = cpu_seconds() - t0;
        best = t < best ? t : best;
    }
    printf("%.9f\n", best / count);
    free(all);
    return bad;
}

int main(int argc, char **argv) {
    int kernel = argc == 3 && !strcmp(argv[1], "-k");
    if (argc != 2 && !kernel) {
        fprintf(stderr, "usage: %s [-k] PUZZLES\n", argv[0]);
        return 2;
    }
    FILE *in = fopen(argv[argc - 1], "r");
    if (!in) {
        perror(argv[argc - 1]);
        return 2;
    }
    if (kernel)
        return kernel_only(in);
    static char out[1 << 16];
    setvbuf(stdout, out, _IOFBF, sizeof out);
    char puzzle[82], solution[82];
    int bad = 0;
    while (read_puzzle(in, puzzle)) {
        solution[81] = 0;
        if (peer_solve(puzzle, solution) < 1 || !checked(puzzle, solution)) {
            bad = 1;
            fputc('\n', stdout);
            continue;
        }
        solution[81] = '\n';
        fwrite(solution, 1, 82, stdout);
    }
    fclose(in);
    return bad;
}
