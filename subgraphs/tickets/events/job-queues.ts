// The queues are common/'s (the REST adapter enqueues Meta's webhooks on one); events/ keeps its name for them.
export {
  JobQueues,
  QueueUnavailableError,
  type DeliveryJob,
  type PayloadJob,
  type PayloadQueueName,
  type QueueName,
} from '../../../common/job-queues';
