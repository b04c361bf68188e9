package api

import "github.com/gofiber/fiber/v2"

// routes lists every route of the app, one per line. On the writes that
// keep an answer for an Idempotency-Key (s.idempotent), the key comes
// first, so that a replay runs nothing, not even a rate limit. The import
// route comes before limitBody, which holds every route after it to
// BodyLimit.
func (s *server) routes(app *fiber.App) {
	app.Use("/api", textOnly)
	app.Post("/api/v1/groups/import", s.idempotent, s.createLimit, s.importGroup)
	app.Use(limitBody)
	app.Get("/healthz", s.health)
	app.Get("/readyz", s.ready)
	app.Get("/api/openapi.json", s.openAPI)
	app.Get("/api/v1/games", s.listGames)
	app.Get("/api/v1/games/:id", s.getGame)
	app.Post("/api/v1/games/:id/score", s.scoreGame)
	app.Post("/api/v1/tables", s.idempotent, s.createLimit, s.createTable)
	app.Get("/api/v1/tables/:code", s.guessLimit, s.getTable)
	app.Post("/api/v1/tables/:code/seats", s.idempotent, s.guessLimit, s.joinTable)
	app.Post("/api/v1/tables/:code/seats/:seat/claim", s.idempotent, s.guessLimit, s.claimSeat)
	app.Put("/api/v1/tables/:code/seats/:seat/board", s.idempotent, s.guessLimit, s.putBoard)
	app.Put("/api/v1/tables/:code/seats/:seat/sync", s.guessLimit, s.reportSync)
	app.Get("/api/v1/tables/:code/qr.png", s.guessLimit, s.tableQRPNG)
	app.Get("/api/v1/tables/:code/qr.svg", s.guessLimit, s.tableQRSVG)
	app.Get("/api/v1/tables/:code/events", s.guessLimit, s.tableEvents)
	app.Post("/api/v1/tables/:code/finish", s.idempotent, s.guessLimit, s.finishTable)
	app.Post("/api/v1/tables/:code/moves", s.idempotent, s.guessLimit, s.addMove)
	app.Delete("/api/v1/tables/:code/moves/last", s.idempotent, s.guessLimit, s.undoMove)
	app.Post("/api/v1/groups", s.idempotent, s.createLimit, s.createGroup)
	app.Get("/api/v1/groups/:id", s.guessLimit, s.getGroup)
	app.Get("/api/v1/groups/:id/qr.png", s.guessLimit, s.groupQRPNG)
	app.Get("/api/v1/groups/:id/qr.svg", s.guessLimit, s.groupQRSVG)
	app.Get("/api/v1/groups/:id/players", s.guessLimit, s.listGroupPlayers)
	app.Get("/api/v1/groups/:id/export", s.guessLimit, s.exportGroup)
	app.Get("/api/v1/groups/:id/plays.csv", s.guessLimit, s.exportPlaysCSV)
	app.Get("/api/v1/plays", s.listPlays)
	app.Post("/api/v1/plays", s.idempotent, s.createLimit, s.logPlay)
	app.Get("/api/v1/plays/:id", s.getPlay)
	app.Put("/api/v1/plays/:id", s.editPlay)
	app.Delete("/api/v1/plays/:id", s.idempotent, s.deletePlay)
	app.Get("/api/v1/leaderboards/:game", s.getLeaderboard)
	app.Get("/api/v1/players/:id", s.getPlayer)
	app.Get("/api/v1/players/:id/ratings", s.listRatings)
	app.Patch("/api/v1/players/:id", s.renamePlayer)
	app.Post("/api/v1/players/:id/merge", s.idempotent, s.mergePlayers)
	app.All("/api/*", s.notFound)
	app.Get("/*", s.serveApp)
}
