// Command gwconform is the conformance and contract test suite for the
// Model-Gateway API. Every subcommand is a thin layer over the packages:
// flags in, engine calls, exit code out (DESIGN.md, "Interface contract").
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/catalog"
)

// Exit codes of the interface contract.
const (
	exitOK       = 0 // every selected verified and negative case passed
	exitFailed   = 1 // at least one failed or errored (diff: regressions)
	exitNotStart = 2 // bad flags, bad case files, unreadable fixtures, unreachable gateway
	// exitIncomplete: nothing failed, but counted cases did not run (no
	// keys), ended throttled, or a configured key was rejected.
	exitIncomplete = 3
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"run", "plan and execute the catalog; write results and reports", runRun},
		{"plan", "print the calls run would make, per key and model", runPlan},
		{"probe", "find and probe models the catalog does not know", runProbe},
		{"serve", "run the reference gateway", runServe},
		{"lint", "validate case files and schemas", runLint},
		{"show", "print one result of a run: reasons, request id, transcript; --curl to send it again", runShow},
		{"diff", "compare two report.json files; exit 1 on regressions", runDiff},
		{"merge", "merge shard results into one report", runMerge},
		{"judge", "judge a relay's recording of any client's traffic, both sides", runJudge},
		{"history", "one page of the matrix over nights from their report.json files", runHistory},
		{"version", "print the version", runVersion},
	}
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitNotStart
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return exitOK
	}
	var names []string
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
		names = append(names, c.name)
	}
	hint := catalog.Closest(args[0], names)
	if hint == "" {
		hint = " (gwconform -h lists the commands)"
	}
	fmt.Fprintf(stderr, "gwconform: unknown command %q%s\n", args[0], hint)
	return exitNotStart
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: gwconform <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'gwconform <command> -h' for a command's flags.")
}

// parseFlags parses the flags of a command that declares its own with the
// flag package. -h prints the usage (fs.Usage, which writes to the flag
// set's output) to stdout, asked for as it is, and ends the command with
// exit 0. A refusal is one line on stderr with a did-you-mean, as the
// engine commands say theirs (conformance.FlagError), not the usage: the
// whole flag list only when asked. ok is false when the command ends here.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard) // the flag package would say the refusal too
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		fs.Usage()
		fs.SetOutput(out)
		return exitOK, false
	case err != nil:
		fs.SetOutput(out)
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), conformance.FlagError(fs, err))
		return exitNotStart, false
	}
	fs.SetOutput(out)
	return 0, true
}
