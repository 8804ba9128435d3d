package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gwconform/gwconform/conformance/refgateway"
)

// repeatFlag is a repeatable string flag (--fault, --extra-model).
type repeatFlag []string

func (r *repeatFlag) String() string     { return strings.Join(*r, ",") }
func (r *repeatFlag) Set(v string) error { *r = append(*r, v); return nil }

// runServe runs the reference gateway until SIGINT or SIGTERM.
func runServe(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr)
}

// serve is runServe with the stop signal as a context, so tests can stop it.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gwconform serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := refgateway.DefaultKeys()
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	textKey := fs.String("text-key", def.Text, "bearer key of the text kind (chat, responses)")
	msgKey := fs.String("messages-key", def.Messages, "bearer key of the messages kind")
	imageKey := fs.String("image-key", def.Image, "bearer key of the image kind")
	altKey := fs.String("alt-key", def.Alt, "bearer key of the alternative text model kind")
	latency := fs.String("latency", "", "delays: ENDPOINT=DURATION[,...], ENDPOINT one of models, chat, messages, images.generations, images.edits, responses, event; DURATION like 200ms or 1s-3s")
	rateLimit := fs.String("rate-limit", "", "limit each key's requests: `SPEC` is RATE[,burst=N][,CLASS=RATE...], RATE like 2/s or 10/m (the first is every class's), CLASS one of models, chat, messages, images, responses, burst the bucket size (default 1), e.g. 2/s,burst=2,images=10/m; over it 429 with Retry-After")
	var faults, extras repeatFlag
	fs.Var(&faults, "fault", "switch a fault on for every request (repeatable, or comma-separated; see --list-faults)")
	fs.Var(&extras, "extra-model", "list and serve an extra model, KIND:ID with KIND text, messages, image or alt (repeatable)")
	listFaults := fs.Bool("list-faults", false, "print the fault switches and the rule each breaks, then exit")
	tlsDir := fs.String("tls", "", "serve HTTPS with a new self-signed certificate for 127.0.0.1 and localhost, written to DIR/cert.pem (give it to run --ca-cert)")
	var si standIn
	fs.StringVar(&si.upstream, "upstream", "", "relay every request to the gateway at `URL` instead of answering as the reference gateway, recording each exchange (with --record)")
	fs.StringVar(&si.record, "record", "", "with --upstream: the recording `DIR` the relayed exchanges are written to (the key flags name the kind of each client's key; keys are never recorded)")
	fs.StringVar(&si.replay, "replay", "", "answer from the recording `DIR` (made by run --record or serve --upstream --record): a request matching a recorded one by key kind, method, path, model and body gets its recorded answer; any other gets 501 naming the nearest recorded exchange")
	fs.BoolVar(&si.timing, "replay-timing", false, "with --replay: answer with the recorded timing (time to headers, each stream event at its recorded offset)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gwconform serve [flags]")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gwconform serve: unexpected argument %q\n", fs.Arg(0))
		return exitNotStart
	}
	if *listFaults {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		for _, f := range refgateway.Faults() {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, f.Spec, f.Rule)
		}
		_ = tw.Flush()
		return exitOK
	}
	cfg := refgateway.Config{Keys: refgateway.Keys{Text: *textKey, Messages: *msgKey, Image: *imageKey, Alt: *altKey}, Faults: faults}
	var handler http.Handler
	var banner func(w io.Writer)
	if si.upstream != "" || si.record != "" || si.replay != "" || si.timing {
		if *latency != "" || *rateLimit != "" || len(faults) > 0 || len(extras) > 0 {
			fmt.Fprintln(stderr, "gwconform serve: --latency, --rate-limit, --fault and --extra-model shape the reference gateway; a relay or a replay answers what the recording says")
			return exitNotStart
		}
		si.keys = map[string]string{refgateway.KindText: *textKey, refgateway.KindMessages: *msgKey, refgateway.KindImage: *imageKey, refgateway.KindAlt: *altKey}
		h, b, err := si.handler()
		if err != nil {
			fmt.Fprintln(stderr, "gwconform serve:", err)
			return exitNotStart
		}
		handler, banner = h, b
	} else {
		lat, err := refgateway.ParseLatency(*latency)
		if err != nil {
			fmt.Fprintln(stderr, "gwconform serve: --latency:", err)
			return exitNotStart
		}
		cfg.Latency = lat
		rl, err := refgateway.ParseRateLimit(*rateLimit)
		if err != nil {
			fmt.Fprintln(stderr, "gwconform serve: --rate-limit:", err)
			return exitNotStart
		}
		cfg.RateLimit = rl
		for _, e := range extras {
			em, err := refgateway.ParseExtraModel(e)
			if err != nil {
				fmt.Fprintln(stderr, "gwconform serve: --extra-model:", err)
				return exitNotStart
			}
			cfg.ExtraModels = append(cfg.ExtraModels, em)
		}
		gw, err := refgateway.New(cfg)
		if err != nil {
			fmt.Fprintln(stderr, "gwconform serve:", err)
			return exitNotStart
		}
		handler = gw
		banner = func(w io.Writer) {
			fmt.Fprintf(w, "  text key:     %s\n  messages key: %s\n  image key:    %s\n  alt key:      %s\n",
				cfg.Keys.Text, cfg.Keys.Messages, cfg.Keys.Image, cfg.Keys.Alt)
			if len(faults) > 0 {
				fmt.Fprintf(w, "  faults:       %s\n", strings.Join(faults, ","))
			}
			if cfg.RateLimit.Enabled() {
				fmt.Fprintf(w, "  rate limit:   %s\n", cfg.RateLimit)
			}
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "gwconform serve:", err)
		return exitNotStart
	}
	scheme := "http"
	if *tlsDir != "" {
		cert, err := selfSigned(*tlsDir)
		if err != nil {
			ln.Close()
			fmt.Fprintln(stderr, "gwconform serve: --tls:", err)
			return exitNotStart
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		scheme = "https"
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		// No write timeout: streams and large image requests may take up to
		// the spec's 600 s (section 8).
	}
	fmt.Fprintf(stdout, "gwconform %s listening on %s://%s\n", si.role(), scheme, ln.Addr())
	if *tlsDir != "" {
		fmt.Fprintf(stdout, "  certificate:  %s (self-signed; run --ca-cert %[1]s)\n", filepath.Join(*tlsDir, "cert.pem"))
	}
	banner(stdout)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(stderr, "gwconform serve:", err)
		return exitFailed
	case <-ctx.Done():
	}
	fmt.Fprintln(stdout, "shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	return exitOK
}
