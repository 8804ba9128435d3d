module github.com/gwconform/gwconform

go 1.26.0

tool gotest.tools/gotestsum

require (
	github.com/HugoSmits86/nativewebp v0.9.3
	github.com/chromedp/chromedp v0.23.0
	github.com/deepteams/webp v1.2.3
	github.com/goccy/go-yaml v1.19.2
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/stretchr/testify v1.12.1
	github.com/tidwall/gjson v1.20.0
	golang.org/x/image v0.47.0
	golang.org/x/term v0.35.0
	golang.org/x/text v0.43.0
)

require (
	github.com/bitfield/gotestdox v0.2.2 // indirect
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/dnephin/pflag v1.0.7 // indirect
	github.com/fatih/color v1.18.0 // indirect
	github.com/fsnotify/fsnotify v1.9.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/shlex v0.0.0-20191202100458-e7afc7fbc510 // indirect
	github.com/mattn/go-colorable v0.1.13 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/rogpeppe/go-internal v1.13.1 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
	gotest.tools/gotestsum v1.13.0 // indirect
)
