package main

import "runtime/debug"

// version is set at build time: go build -ldflags "-X main.version=v1.2.3".
var version string

// schedtuiVersion is the version recorded in captures: the build-time
// version, else the module version Go recorded, else "dev".
func schedtuiVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
