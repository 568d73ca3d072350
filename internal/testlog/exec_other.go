//go:build !linux

package main

import (
	"fmt"
	"os"
)

const cpuMark = "testlog-cpu "

// runTest measures a test binary's CPU on Linux only (/proc, subreaper).
func runTest(argv []string) int {
	fmt.Fprintln(os.Stderr, "testlog -exec: Linux only")
	return 2
}
