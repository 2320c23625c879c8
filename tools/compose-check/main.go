// compose-check loads a compose file with the real compose loader (compose-go, the library behind
// `docker compose`) and prints the resolved project as JSON, or the loader's error on stderr with exit
// status 1. The environment it interpolates is this process's own, plus an optional --env-file.
// test/dockerCompose.test.ts runs it; scripts/lib/composeCheck.ts builds it once and caches it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	file := flag.String("file", "docker-compose.yml", "compose file")
	envFile := flag.String("env-file", "", "an .env file to read, as `docker compose --env-file`")
	profiles := flag.String("profiles", "", "comma-separated profiles to enable")
	flag.Parse()

	opts := []cli.ProjectOptionsFn{cli.WithOsEnv, cli.WithInterpolation(true), cli.WithResolvedPaths(true)}
	if *envFile != "" {
		opts = append(opts, cli.WithEnvFiles(*envFile), cli.WithDotEnv)
	} else {
		// Only the process environment: an operator's stray .env must not change what a test sees.
		opts = append(opts, cli.WithEnvFiles())
	}
	if *profiles != "" {
		opts = append(opts, cli.WithProfiles(strings.Split(*profiles, ",")))
	}
	options, err := cli.NewProjectOptions([]string{*file}, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := json.Marshal(project)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
