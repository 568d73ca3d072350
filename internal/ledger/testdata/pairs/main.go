// Command pairs times two commands against each other for bench.sh's line
// (6) (issue 38): N rounds, each running both commands once in an order that
// alternates (ours, ref / ref, ours), after a few warm-up rounds not counted.
// Each process is timed from its fork to its wait (wall) and by the kernel
// (user+sys CPU of its rusage from wait4), so a burst of load on a shared
// machine, which stretches wall time, shows beside CPU time, which it does
// not stretch as much. It prints, for each measure, the two medians, the
// quartiles, and the median of the per-round ratios (each round's two
// processes ran side by side in time, so drift over the run cancels), and
// the quartiles of those ratios as the spread:
//
//	wall ours MEDIAN Q1 Q3 ref MEDIAN Q1 Q3 ratio MEDIAN Q1 Q3
//	cpu  ours MEDIAN Q1 Q3 ref MEDIAN Q1 Q3 ratio MEDIAN Q1 Q3
//	faults ours MEDIAN ref MEDIAN
//
// Times in milliseconds. Usage: pairs -n 101 -- OURS... -- REF...
// Each command's standard output is read and thrown away; a command that
// fails (a non-zero exit) stops the run with its error.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

type envFlag []string

func (e *envFlag) String() string     { return fmt.Sprint(*e) }
func (e *envFlag) Set(s string) error { *e = append(*e, s); return nil }

type sample struct{ wall, cpu, faults float64 }

func run(argv, env []string) (sample, error) {
	var out, errb bytes.Buffer
	c := exec.Command(argv[0], argv[1:]...)
	if len(env) > 0 {
		c.Env = append(os.Environ(), env...)
	}
	c.Stdout, c.Stderr = &out, &errb
	t := time.Now()
	if err := c.Run(); err != nil {
		return sample{}, fmt.Errorf("%q: %v: %s", argv, err, errb.Bytes())
	}
	wall := time.Since(t)
	ru := c.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{ms(wall), ms(cpu), float64(ru.Minflt + ru.Majflt)}, nil
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// quartiles of xs: Q1, median, Q3 (the nearest rank).
func quartiles(xs []float64) (q1, med, q3 float64) {
	s := slices.Clone(xs)
	slices.Sort(s)
	at := func(p float64) float64 { return s[int(p*float64(len(s)-1)+0.5)] }
	return at(0.25), at(0.5), at(0.75)
}

func main() {
	n := flag.Int("n", 101, "rounds counted")
	warm := flag.Int("warm", 3, "warm-up rounds not counted")
	var env [2]envFlag
	flag.Var(&env[0], "env", "NAME=VALUE in our command's environment (repeatable)")
	flag.Var(&env[1], "refenv", "NAME=VALUE in the reference's environment (repeatable)")
	flag.Parse()
	args := flag.Args()
	// flag.Parse has taken the first "--".
	i := slices.Index(args, "--")
	if i < 1 || i == len(args)-1 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: pairs [-n N] [-warm W] -- OURS... -- REF...")
		os.Exit(2)
	}
	cmds := [2][]string{args[:i], args[i+1:]}
	var got [2][]sample
	var ratioWall, ratioCPU []float64
	for r := 0; r < *warm+*n; r++ {
		var s [2]sample
		for j := 0; j < 2; j++ {
			k := (r + j) % 2 // ours first in even rounds, ref first in odd
			var err error
			if s[k], err = run(cmds[k], env[k]); err != nil {
				fmt.Fprintln(os.Stderr, "pairs:", err)
				os.Exit(1)
			}
		}
		if r < *warm {
			continue
		}
		got[0], got[1] = append(got[0], s[0]), append(got[1], s[1])
		ratioWall = append(ratioWall, s[0].wall/s[1].wall)
		if s[1].cpu > 0 {
			ratioCPU = append(ratioCPU, s[0].cpu/s[1].cpu)
		}
	}
	col := func(k int, f func(sample) float64) []float64 {
		var xs []float64
		for _, s := range got[k] {
			xs = append(xs, f(s))
		}
		return xs
	}
	for _, m := range []struct {
		name  string
		f     func(sample) float64
		ratio []float64
	}{
		{"wall", func(s sample) float64 { return s.wall }, ratioWall},
		{"cpu", func(s sample) float64 { return s.cpu }, ratioCPU},
	} {
		o1, o, o3 := quartiles(col(0, m.f))
		r1, r, r3 := quartiles(col(1, m.f))
		fmt.Printf("%s ours %.3f %.3f %.3f ref %.3f %.3f %.3f", m.name, o, o1, o3, r, r1, r3)
		if len(m.ratio) > 0 {
			q1, q, q3 := quartiles(m.ratio)
			fmt.Printf(" ratio %.3f %.3f %.3f\n", q, q1, q3)
		} else {
			fmt.Printf(" ratio %.3f %.3f %.3f\n", o/r, o1/r3, o3/r1)
		}
	}
	_, fo, _ := quartiles(col(0, func(s sample) float64 { return s.faults }))
	_, fr, _ := quartiles(col(1, func(s sample) float64 { return s.faults }))
	fmt.Printf("faults ours %.0f ref %.0f\n", fo, fr)
}
