package models

import "context"

// NotifyQueueUsage returns the fraction of PostgreSQL's NOTIFY queue in use
// (pg_notification_queue_usage): notifications sent and not yet read by
// every listener, replicas' live updates among them. A queue that fills
// (8 GB on PostgreSQL 15) fails every NOTIFY, so a rising value means a
// listener has stopped reading. ok is false on SQLite, which has no queue
// (and asks nothing of the database).
func (s *Store) NotifyQueueUsage(ctx context.Context) (usage float64, ok bool, err error) {
	if !s.isPostgres() {
		return 0, false, nil
	}
	err = s.db.WithContext(ctx).Raw("SELECT pg_notification_queue_usage()").Scan(&usage).Error
	return usage, true, err
}
