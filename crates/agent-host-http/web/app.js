// The web timeline (placeholder until the UI lands).
