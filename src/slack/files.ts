import type { WebClient } from '@slack/web-api';

export interface FileToShare {
  channel: string;
  /** Shared as a reply in this thread; in the channel itself without it. */
  threadTs?: string | undefined;
  filename: string;
  title: string;
  content: string;
  /** The message that shares the file. */
  comment?: string | undefined;
}

/** How long the bytes may take to reach Slack's upload URL. */
const uploadTimeoutMs = 30_000;

/**
 * Shares files in channels through Slack's external upload, in its three steps:
 * files.getUploadURLExternal, the bytes posted to the URL it gives, files.completeUploadExternal
 * (scope files:write). The steps are called one by one rather than through filesUploadV2 so the
 * methods the bot calls stay visible, and in step with the scopes manifest.yml asks for.
 */
export class SlackFiles {
  readonly #client: WebClient;

  constructor(client: WebClient) {
    this.#client = client;
  }

  /** Uploads and shares one file; returns its Slack id. Rejects when any step fails. */
  async share(file: FileToShare): Promise<string> {
    const bytes = Buffer.from(file.content, 'utf8');
    const { upload_url: uploadUrl, file_id: fileId } = await this.#client.files.getUploadURLExternal({
      filename: file.filename,
      length: bytes.length,
    });
    if (!uploadUrl || !fileId) throw new Error('Slack gave no upload URL for the file');
    const target = new URL(uploadUrl);
    // Slack's upload URLs are https:; plain http only reaches a local stand-in for Slack.
    if (target.protocol !== 'https:' && !(target.protocol === 'http:' && isLoopback(target.hostname)))
      throw new Error('Slack gave an upload URL that is not https:');
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
      signal: AbortSignal.timeout(uploadTimeoutMs),
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`Slack refused the file's bytes (${response.status})`);
    await this.#client.files.completeUploadExternal({
      files: [{ id: fileId, title: file.title }],
      channel_id: file.channel,
      ...(file.threadTs ? { thread_ts: file.threadTs } : {}),
      ...(file.comment ? { initial_comment: file.comment } : {}),
    });
    return fileId;
  }
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    hostname === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}
