package main

import (
	"io"
	"testing"
)

func TestParseConfig(t *testing.T) {
	env := map[string]string{"INSECTSCORE_ADDR": ":9000", "INSECTSCORE_BASE_URL": "https://scores.example/"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name string
		args []string
		want config
	}{
		{"environment", nil, config{Addr: ":9000", DB: "./insectscore.db", BaseURL: "https://scores.example", LogLevel: "info"}},
		{"flags win", []string{"-addr", ":7000", "-db", "/tmp/x.db", "-log-level", "debug"},
			config{Addr: ":7000", DB: "/tmp/x.db", BaseURL: "https://scores.example", LogLevel: "debug"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig(tt.args, getenv, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if _, err := parseConfig([]string{"-nope"}, getenv, io.Discard); err == nil {
		t.Error("an unknown flag was accepted")
	}
	if _, err := logLevel("loud"); err == nil {
		t.Error("log level loud was accepted")
	}
}
