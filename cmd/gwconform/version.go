package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// buildCommit names the suite's commit for reports: the VCS revision Go
// stamped into the binary, else the CI's variable, else "unknown".
func buildCommit() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value
			}
		}
	}
	for _, v := range []string{"GWCONFORM_COMMIT", "GITHUB_SHA"} {
		if c := os.Getenv(v); c != "" {
			return c
		}
	}
	return "unknown"
}

// suiteVersion is the version -ldflags set (make build, make run), else the
// module version Go stamped into a binary built by go install
// (v1.2.3, or a pseudo-version), else "dev" for a build from a work tree.
func suiteVersion() string {
	if version != "dev" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return version
}

// runVersion prints the version; it takes no argument, and refuses one
// like every command that takes none.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gwconform version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), "usage: gwconform version   (the suite's version and commit)") }
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if args = fs.Args(); len(args) > 0 {
		fmt.Fprintf(stderr, "gwconform version: unexpected argument %q\n", args[0])
		return exitNotStart
	}
	fmt.Fprintf(stdout, "gwconform %s (commit %s)\n", suiteVersion(), buildCommit())
	return exitOK
}
